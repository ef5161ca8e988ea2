"""Both clients against a real ``phronesis serve`` process over loopback (issue 26): a story
through every decision point, replay and settings, and the server's refusals as typed errors."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from phronesis.client import AsyncClient, Client, InvalidRequest, NotFound, Unauthorized
from tests.processes import phronesis_env, server

KEY = "sk-client-test"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("client-server")
    env = phronesis_env(data, PHRONESIS_API__KEYS=json.dumps({KEY: "client-tenant"}))
    with server(env) as base:
        yield base


def test_a_story_through_every_decision_point(base_url: str) -> None:
    with Client(base_url, api_key=KEY) as phronesis:
        heuristic = phronesis.executive.create_heuristic(
            {"condition_text": "the greenhouse door is open at night", "action_text": "close it", "confidence": 0.9}
        )
        decided = phronesis.executive.decide({"text": "the greenhouse door is open at night"})
        assert decided.accepted and decided.matched_heuristic_id == heuristic.id
        receipt = phronesis.executive.feedback({"response_id": decided.response_id, "rating": "positive"})
        assert receipt.response_id == decided.response_id
        assert phronesis.decisions.get(decided.response_id).kind == "executive"

        session = phronesis.routing.create_session()
        turn = phronesis.routing.route(session.id, {"query": "Thanks, that helps!"})
        assert turn.decision == "REASON_ONLY"
        rated = phronesis.routing.feedback(session.id, {"decision_id": turn.decision_id, "correct": True})
        assert rated.outcome == "correct"

        run = {"task": "book a flight to Lisbon", "outcome": "success", "summary": "booked TAP 123 for May 3"}
        admitted = phronesis.admission.admit(run)
        assert admitted.decision == "ADD"
        assert phronesis.admission.search("flight to Lisbon")[0].run.id == admitted.run_id

        profile = phronesis.proactive.put_user("ana", {"timezone": "UTC"})
        assert profile.id == "ana"
        assert phronesis.proactive.preview({"user_id": "ana"}).decision in ("would_send", "silent")

        report = phronesis.replay.run({"decision_point": "routing", "parameter": "high_threshold", "value": 0.9})
        assert report.decisions >= 1 and report.handoffs_logged is not None
        applied = phronesis.settings.apply("routing.high_threshold", {"value": 0.8, "note": "from the client"})
        assert phronesis.settings.get("routing.high_threshold").value == applied.value == 0.8
        phronesis.settings.apply("routing.high_threshold", {"value": None})


def test_the_servers_refusals_are_typed_errors(base_url: str) -> None:
    with Client(base_url, api_key=KEY) as phronesis:
        with pytest.raises(NotFound):
            phronesis.decisions.get("no-such-decision")
        with pytest.raises(InvalidRequest) as refused:
            phronesis.settings.apply("routing.low_threshold", {"value": 0.9})  # above the high one
        assert refused.value.field == "value" and "routing.high_threshold" in refused.value.detail
    with Client(base_url, api_key="sk-wrong") as stranger, pytest.raises(Unauthorized):
        stranger.routing.create_session()


async def test_the_async_client_tells_the_same_story(base_url: str) -> None:
    async with AsyncClient(base_url, api_key=KEY) as phronesis:
        session = await phronesis.routing.create_session({"lead_context": {"email": "a@b.c"}})
        turn = await phronesis.routing.route(session.id, {"query": "Thanks, that helps!"})
        assert turn.session_id == session.id
        assert (await phronesis.routing.session(session.id)).message_count == 1
        with pytest.raises(NotFound):
            await phronesis.decisions.get("no-such-decision")


def test_the_readme_s_python_tour_runs(
    base_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's client example, as written, against the server (it must not rot)."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    found = re.search(r"```python\n(from phronesis\.client import .*?)```", readme, re.S)
    assert found is not None, "the README shows the client"
    monkeypatch.setenv("PHRONESIS_API_KEY", KEY)
    code = found.group(1).replace('Client("http://127.0.0.1:8000")', f'Client("{base_url}")')
    exec(compile(code, "README.md", "exec"), {})  # the README's own example
    printed = capsys.readouterr().out.splitlines()
    assert printed[:3] == ["heuristic raise the thermostat by two degrees", "REASON_ONLY", "ADD"]
    assert printed[3].startswith("value value: routing.low_threshold must not be above routing.high_threshold")
