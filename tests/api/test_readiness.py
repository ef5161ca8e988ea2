"""A dead LLM, seen by a real server (issue 20): readiness reports it, decisions say they are degraded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.loopback import free_port
from tests.processes import phronesis_env, server


@pytest.fixture
def dead_llm() -> Iterator[str]:
    """An OpenAI-compatible LLM spec whose port nothing listens on."""
    yield f"openai-compatible:http://127.0.0.1:{free_port()}/v1#my-model"


@pytest.mark.process
def test_a_dead_llm_is_reported_by_readyz_and_required_only_when_asked(tmp_path: Path, dead_llm: str) -> None:
    env = phronesis_env(tmp_path, PHRONESIS_LLM__SPEC=dead_llm)
    with server(env) as base:
        ready = httpx.get(f"{base}/readyz", timeout=30)
        assert ready.status_code == 200, ready.text  # heuristics and the local router still decide
        parts = ready.json()["parts"]
        assert parts["database"]["state"] == "ok" and parts["embedder"]["state"] == "ok"
        assert parts["llm"]["state"] == "unavailable" and not parts["llm"]["required"]
        assert "LLMConnectionError" in parts["llm"]["detail"]
        assert httpx.get(f"{base}/healthz", timeout=10).json()["llm"] == "my-model"

    with server(
        phronesis_env(tmp_path, PHRONESIS_LLM__SPEC=dead_llm, PHRONESIS_API__READY_REQUIRES_LLM="true")
    ) as base:
        ready = httpx.get(f"{base}/readyz", timeout=30)
        assert ready.status_code == 503 and ready.json()["status"] == "not_ready"


@pytest.mark.process
def test_a_decision_the_dead_llm_could_not_make_is_not_accepted(tmp_path: Path, dead_llm: str) -> None:
    printed: list[str] = []
    env = phronesis_env(tmp_path, PHRONESIS_LLM__SPEC=dead_llm, PHRONESIS_LLM__MAX_RETRIES="0")
    with server(env, output=printed) as base:
        for _ in range(3):
            decision = httpx.post(
                f"{base}/v1/events/decide", json={"text": "the smoke alarm is beeping", "source": "home"}, timeout=60
            ).json()
            assert decision["decision_path"] == "fallback" and decision["accepted"] is False
            assert decision["degraded"] is True and decision["error"].startswith("llm_connection_error: ")
            record = httpx.get(f"{base}/v1/decisions/{decision['response_id']}", timeout=10).json()
            assert record["model"] == "my-model" and record["attributes"]["llm_error"] == "llm_connection_error"
    log = printed[0]
    assert "Traceback" not in log
    failed = [line for line in log.splitlines() if "LLM my-model failed" in line]
    assert len(failed) == 1 and "LLMConnectionError" in failed[0]  # once, with its cause, not per decision
