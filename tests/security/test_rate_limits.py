"""Rate limits: failed authentication per address, requests per key, shared through Redis (issue 49, item 5).

An attack review sent 300 bad-key requests in 2.3 s and 200 dashboard sign-in guesses, all served.
Through real server processes: after ``auth_failures`` answers of 401 from one address, its next
requests are refused (429 problem+json with ``Retry-After``) before any key is looked at; a key over
``per_key`` is refused too, and two workers sharing Redis count one budget between them.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import httpx
import pytest

from tests.processes import phronesis_env, server


def _too_many(answer: httpx.Response) -> bool:
    if answer.status_code != 429:
        return False
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert int(answer.headers["retry-after"]) >= 1
    return True


@pytest.mark.process
def test_guessing_keys_is_stopped_after_a_few_failures(tmp_path: Path) -> None:
    key = f"sk-{uuid.uuid4().hex}"
    env = phronesis_env(tmp_path, PHRONESIS_API__KEYS=json.dumps({key: "acme"}),
                        PHRONESIS_API__RATE_LIMITS__AUTH_FAILURES="5/minute")  # fmt: skip
    with server(env) as base, httpx.Client(base_url=base, timeout=30) as http:
        answers = [http.get("/v1/heuristics", headers={"authorization": f"Bearer sk-guess-{n}"}) for n in range(8)]
        assert [a.status_code for a in answers[:5]] == [401] * 5
        assert all(_too_many(a) for a in answers[5:])
        guesses = [http.post("/ui/sign-in", data={"key": f"sk-guess-{n}"}) for n in range(3)]
        assert all(_too_many(a) for a in guesses)  # the dashboard's sign-in is the same door
        assert http.get("/healthz").status_code == 200  # probes are never limited


@pytest.mark.process
def test_two_workers_sharing_redis_share_a_keys_budget(tmp_path: Path) -> None:
    key = f"sk-{uuid.uuid4().hex}"
    env = phronesis_env(tmp_path, PHRONESIS_API__KEYS=json.dumps({key: "acme"}),
                        PHRONESIS_API__RATE_LIMITS__PER_KEY="10/minute",
                        PHRONESIS_API__RATE_LIMITS__STORAGE="redis://127.0.0.1:6379")  # fmt: skip
    headers = {"authorization": f"Bearer {key}"}
    with server(env) as first, server(env) as second:
        answers = [httpx.get(f"{base}/v1/heuristics", headers=headers, timeout=30) for base in (first, second) * 7]
    assert [a.status_code for a in answers[:10]] == [200] * 10
    assert all(_too_many(a) for a in answers[10:])
