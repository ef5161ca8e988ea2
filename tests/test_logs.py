"""What an operator reads (issue 20): a start-up summary, request ids on log lines and in decision
records, JSON lines on request, the console channel's messages, ``phronesis --version``."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from phronesis import __version__
from tests.cli.test_proactive_cli import ics
from tests.conftest import MainRunner
from tests.processes import phronesis_env, server


def test_version(main: MainRunner) -> None:
    done = main("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"phronesis {__version__}"


@pytest.mark.process
def test_the_server_says_what_it_runs_with_and_tags_lines_with_the_request_id(tmp_path: Path) -> None:
    printed: list[str] = []
    env = phronesis_env(tmp_path, PHRONESIS_DATABASE__URL=f"sqlite+aiosqlite:///{tmp_path / 'p.db'}")
    with server(env, output=printed) as base:
        answer = httpx.post(
            f"{base}/v1/events/decide",
            json={"text": "the smoke alarm is beeping", "source": "home"},
            headers={"X-Request-ID": "req-42.a"},
            timeout=30,
        )
        assert answer.headers["x-request-id"] == "req-42.a"
        record = httpx.get(f"{base}/v1/decisions/{answer.json()['response_id']}", timeout=10).json()
        assert record["attributes"]["request_id"] == "req-42.a"
        generated = httpx.get(f"{base}/v1/heuristics", headers={"X-Request-ID": "bad id\\n"}, timeout=10)
        assert len(generated.headers["x-request-id"]) == 32  # an unusable id is replaced, never echoed
    access = [line for line in printed[0].splitlines() if "uvicorn.access" in line and "/v1/events/decide" in line]
    assert access and access[0].endswith("[request req-42.a]")
    summary = next(line for line in printed[0].splitlines() if "ready:" in line)
    assert f"phronesis {__version__} ready:" in summary
    for part in ("database=sqlite+aiosqlite:///", "data_dir=", "embedder=hashing", "llm=none", "index_backend="):
        assert part in summary


@pytest.mark.process
def test_json_logs_are_one_object_per_line(tmp_path: Path) -> None:
    """Every line, uvicorn's and the settings' warnings included (found by a fresh-clone trial)."""
    printed: list[str] = []
    env = phronesis_env(tmp_path, PHRONESIS_LOG_FORMAT="json", PHRONESIS_DATABSE__URL="x")
    with server(env, output=printed) as base:
        httpx.get(f"{base}/v1/heuristics", headers={"X-Request-ID": "req-json"}, timeout=10)
    entries = [json.loads(line) for line in printed[0].splitlines() if line.strip()]
    assert all({"time", "level", "logger", "message"} <= set(e) for e in entries)
    assert any(e["logger"] == "phronesis.api" and "ready:" in e["message"] for e in entries)
    assert any(e["logger"] == "phronesis.settings" and "PHRONESIS_DATABSE__URL" in e["message"] for e in entries)
    access = [e for e in entries if e["logger"] == "uvicorn.access" and "/v1/heuristics" in e["message"]]
    assert access and access[0]["request_id"] == "req-json"


def test_the_console_channel_prints_its_messages(main: MainRunner, tmp_path: Path) -> None:
    env = {"PHRONESIS_EMBEDDINGS__SPEC": "hashing:384", "PHRONESIS_PROACTIVE__SCHEDULER": "false"}
    assert main("proactive", "users", "put", "ana", "--sleep", "00:00", "--wake", "00:00", **env).returncode == 0
    calendar = tmp_path / "work.ics"
    calendar.write_text(ics(datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=30)))
    assert main("proactive", "signals", "import-ics", "ana", str(calendar), **env).returncode == 0
    ran = main("proactive", "run", "--user", "ana", "--json", **env)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["decision"] == "sent"
    delivered = [line for line in ran.stderr.splitlines() if "proactive message" in line]
    assert len(delivered) == 1 and "stand-up" in delivered[0]
