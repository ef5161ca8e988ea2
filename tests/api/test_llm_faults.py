"""An LLM that is slow past its timeout or answers garbage, under concurrent load, seen by a real
server (issue 20): every decision answers (no 5xx, no hang), none is accepted without an
answer, each says what failed, and the log says it once."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.llm.chat_server import ChatServer, running_chat_server
from tests.processes import phronesis_env, server


@pytest.fixture(scope="module")
def chat() -> Iterator[ChatServer]:
    with running_chat_server() as running:
        yield running


@pytest.mark.parametrize(
    ("model", "reason"),
    [("slow", "llm_timeout"), ("malformed", "llm_bad_response"), ("nonjson", "llm_bad_response")],
)
@pytest.mark.process
def test_a_faulty_llm_under_load_gives_honest_fallbacks(
    chat: ChatServer, tmp_path: Path, model: str, reason: str
) -> None:
    printed: list[str] = []
    env = phronesis_env(
        tmp_path,
        PHRONESIS_LLM__SPEC=f"openai-compatible:{chat.base_url}#{model}",
        PHRONESIS_LLM__TIMEOUT_S="0.5",
        PHRONESIS_LLM__MAX_RETRIES="1",
    )
    with server(env, output=printed) as base:

        def decide(i: int) -> tuple[int, dict[str, Any]]:
            response = httpx.post(
                f"{base}/v1/events/decide", json={"text": f"event number {i} at the door", "source": "home"}, timeout=60
            )
            return response.status_code, response.json()

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(decide, range(24)))

    assert {status for status, _ in answers} == {200}
    for _, decision in answers:
        assert decision["decision_path"] == "fallback" and decision["accepted"] is False
        assert decision["degraded"] is True and decision["error"].startswith(f"{reason}: ")
    log = printed[0]
    failed = [line for line in log.splitlines() if f"LLM {model} failed" in line]
    assert 1 <= len(failed) <= 2, log  # once per distinct cause, not once per decision
    assert "Traceback" not in log and " 500 " not in log
