"""A real server with seeded decisions, and Debian's Chromium driven by Playwright (issue 25).

Playwright and its browser live for one module: its sync API keeps an event loop running on
the main thread, and the async tests after it need that thread's loop free.

``playwright install`` downloads a browser and cannot run here: the tests launch
``/usr/bin/chromium`` (``apt-get install -y chromium``; ``.ci/run`` installs it). Every page a
test opens is watched: a console error, or a request to any origin but the server's, fails it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright
from sqlalchemy import update

from phronesis.audit.models import NewDecisionRecord
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.server import create_app
from phronesis.settings import Settings
from phronesis.storage.tables import decision_records
from tests.loopback import serving_app

CHROMIUM = os.environ.get("PHRONESIS_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = (
    Path(os.environ.get("PHRONESIS_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts")) / "ui"
)
"""Screenshots of each page, kept after the run (``test-artifacts/ui/*.png``, not committed)."""
KEYS = {"sk-acme-ui": "acme", "sk-globex-ui": "globex", "sk-initech-ui": "initech", "sk-umbrella-ui": "umbrella"}

SEEDED = {
    # (kind, path, action, reason): how many, for tenant acme, spread over the last three days
    ("routing", "local", "RETRIEVE", None): 4,
    ("routing", "local", "USE_TOOL", None): 2,
    ("routing", "llm", "ESCALATE", "sensitive_topic"): 1,
    ("admission", "llm", "ADD", None): 3,
    ("admission", "rule", "NOT", None): 2,
    ("proactive", "cycle", "sent", "sent"): 2,
    ("proactive", "prefilter", "silent", "quiet_hours"): 2,
    ("proactive", "prefilter", "silent", "muted"): 1,
}

RATED = ("correct", "correct", "incorrect", "correct")


@dataclass
class Dashboard:
    base_url: str
    executive_decision: dict[str, Any] = field(default_factory=dict)
    globex_decision: str = "globex-0"
    runs: dict[str, str] = field(default_factory=dict)
    """Tenant umbrella's admission story: name → run id (and ``merge``: the MERGE's decision id)."""

    def api(self, key: str = "sk-acme-ui") -> httpx.Client:
        return httpx.Client(base_url=self.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=10)


def _settings(data_dir: Path) -> Settings:
    return Settings(
        data_dir=data_dir,
        embeddings={"spec": "hashing:384"},
        api={"keys": KEYS, "dev_mode": False},
        proactive={"scheduler": False},
    )


async def _seed(data_dir: Path) -> None:
    """Records written by another process before the server starts (the dashboard reads the database)."""
    engine = Engine(_settings(data_dir), embedder=HashingEmbedder(384), llm=None)
    await engine.start()
    now = datetime.now(UTC)
    n = 0
    try:
        for (kind, path, action, reason), count in SEEDED.items():
            for i in range(count):
                n += 1
                record = NewDecisionRecord(
                    id=f"seed-{n}",
                    tenant="acme",
                    kind=kind,
                    path=path,
                    action=action,
                    reason=reason,
                    confidence=0.5 + i / 20,
                    llm_calls=1 if path == "llm" else 0,
                    prompt_tokens=120 if path == "llm" else None,
                    completion_tokens=30 if path == "llm" else None,
                    latency_ms=5.0 + n,
                    subject_id=f"subject-{kind}",
                )
                await engine.decisions.write(record)
                await _backdate(engine, record.id, now - timedelta(days=n % 3))
        # the first routing decisions rated (confidence 0.5, 0.55, 0.6, 0.65), for calibration;
        # the wrong one should have asked to clarify
        for record_id, outcome in zip(("seed-1", "seed-2", "seed-3", "seed-4"), RATED, strict=True):
            right = outcome == "correct"
            said = {"correct": right, "expected_decision": None if right else "CLARIFY"}
            await engine.decisions.rate("acme", record_id, "route_feedback", said, correct=right)
        for i in range(20):  # initech's cascade decisions, all rated right, for the replay
            p = 0.3 + i * 0.035
            local = {"decision": "RETRIEVE" if i % 2 else "CLARIFY", "probability": p, "abstained": None}
            record = NewDecisionRecord(id=f"cascade-{i}", tenant="initech", kind="routing", strategy="cascade",
                                       path="llm" if p < 0.75 else "local", action="RETRIEVE", llm_calls=int(p < 0.75),
                                       attributes={"local": local})  # fmt: skip
            await engine.decisions.write(record)
            await engine.decisions.rate("initech", record.id, "route_feedback", {"correct": True}, correct=True)
        for i in range(4):
            await engine.decisions.write(
                NewDecisionRecord(
                    id=f"globex-{i}",
                    tenant="globex",
                    kind="routing",
                    path="local",
                    action="CLARIFY",
                    subject_id="globex-secret-subject",
                    llm_calls=0,
                )  # fmt: skip
            )
    finally:
        await engine.close()


async def _backdate(engine: Engine, record_id: str, at: datetime) -> None:
    async with engine.database.transaction() as conn:
        await conn.execute(update(decision_records).where(decision_records.c.id == record_id).values(created_at=at))


@pytest.fixture(scope="session")
def dashboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dashboard]:
    data_dir = tmp_path_factory.mktemp("dashboard")
    # in a thread of its own: Playwright's sync API keeps an event loop on this one
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _seed(data_dir)).result()
    engine = Engine(_settings(data_dir), embedder=HashingEmbedder(384), llm=None)
    with serving_app(create_app(engine, close_engine=True)) as base_url:
        board = Dashboard(base_url)
        with board.api() as client:
            condition = "the greenhouse door was left open overnight"
            heuristic = client.post(
                "/v1/heuristics", json={"condition_text": condition, "action_text": "close it", "confidence": 0.9}
            ).json()
            decided = client.post("/v1/events/decide", json={"text": condition, "event_id": "ev-greenhouse"}).json()
            board.executive_decision = {"id": decided["response_id"], "heuristic_id": heuristic["id"]}
            rated = client.post("/v1/feedback", json={"response_id": decided["response_id"], "rating": "positive"})
            board.executive_decision["confidence"] = rated.json()["new_confidence"]
        _proactive_story(board)
        _admission_story(board)
        yield board


def _admission_story(board: Dashboard) -> None:
    """Tenant umbrella: a failed run replaced by a better one, then a complementary run merged."""
    task = "Generate the invoice schema"
    with board.api("sk-umbrella-ui") as client:
        first = client.post("/v1/runs", json={"agent_id": "builder", "task": task, "outcome": "failure"}).json()
        better = client.post(
            "/v1/runs", json={"agent_id": "builder", "task": task, "outcome": "success", "replaces": first["run_id"]}
        ).json()
        other = client.post(
            "/v1/runs",
            json={"agent_id": "builder", "task": task, "outcome": "success", "references": ["docs/invoices.md"]},
        ).json()
    assert (better["decision"], other["decision"]) == ("REPLACE", "MERGE"), (better, other)
    board.runs = {"first": first["run_id"], "better": better["run_id"], "other": other["run_id"]}
    board.runs["merge"] = other["decision_id"]


def _proactive_story(board: Dashboard) -> None:
    """Tenant initech: a user gets a deadline warning and answers it; another has nothing due."""
    awake = {"created_at": "2025-01-01T00:00:00Z", "interaction_count": 500, "timezone": "UTC",
             "sleep_time": "00:00", "wake_time": "00:00"}  # fmt: skip
    due = (datetime.now(UTC) + timedelta(minutes=40)).isoformat()
    signal = {"type": "deadline_approaching", "urgency_hint": 9, "data": {"title": "Essay", "due": due}}
    with board.api("sk-initech-ui") as client:
        for user in ("ana", "ben"):
            assert client.put(f"/v1/users/{user}", json=awake).status_code == 201
        assert client.post("/v1/users/ana/signals", json={"signals": [signal]}).status_code == 201
        for user in ("ana", "ben"):
            client.post("/v1/proactive/cycles", json={"user_id": user}).raise_for_status()
        client.post("/v1/users/ana/messages", json={"text": "thanks, on it!"}).raise_for_status()


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if shutil.which(CHROMIUM) is None:
        pytest.fail(f"no browser at {CHROMIUM}: apt-get install -y chromium (or set PHRONESIS_CHROMIUM)")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    yield browser
    browser.close()


@dataclass
class Watched:
    page: Page
    errors: list[str]
    foreign: list[str]
    allowed: set[int] = field(default_factory=set)
    """HTTP statuses a test asks for (a refusal): Chromium logs each as a console error."""

    def allow(self, status: int) -> None:
        self.allowed.add(status)

    def unexpected_errors(self) -> list[str]:
        refusals = tuple(f"status of {status}" for status in self.allowed)
        return [
            e
            for e in self.errors
            if not (refusals and "Failed to load resource" in e and any(r in e for r in refusals))
        ]

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture
def watched(browser: Browser, dashboard: Dashboard) -> Iterator[Watched]:
    """A fresh browser context (no cookies) whose page must stay on the server's origin, error-free."""
    context = browser.new_context(base_url=dashboard.base_url)
    page = context.new_page()
    seen = Watched(page, [], [])
    page.on("console", lambda message: seen.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: seen.errors.append(str(error)))
    page.on(
        "request",
        lambda request: None if request.url.startswith(dashboard.base_url) else seen.foreign.append(request.url),
    )
    yield seen
    context.close()
    assert seen.unexpected_errors() == [], seen.errors
    assert seen.foreign == [], seen.foreign


def sign_in(watched: Watched, key: str = "sk-acme-ui") -> None:
    page = watched.page
    page.goto("/ui")
    assert page.url.endswith("/ui/sign-in")
    page.fill("input[name=api_key]", key)
    page.click("button[type=submit]")
    page.wait_for_url("**/ui")
