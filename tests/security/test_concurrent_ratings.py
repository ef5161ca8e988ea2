"""Opposite ratings of one decision sent at once: the last click wins (issue 49, item 1).

On PostgreSQL two ratings of one response id sent at once (positive with one key, negative with
another) both counted in 7 trials of 8 (``success_count 1, failure_count 1``), and 30 alternating
ratings drove the counters to ``-1 / 6`` while the record said ``negative``: the fire's standing
rating was read before the heuristic's row was locked. Through a real server on PostgreSQL (and
on SQLite), rounds of two opposite ratings at once leave exactly one rating counted, the one the
decision's record says.

Under load, with the sweep closing fires as their undo window passed, about 1 % of ratings on
PostgreSQL with four workers answered 500: the sweep and a rating, and two ratings counting the
channel, took the same rows' locks in opposite orders, and PostgreSQL rolled one back as a
deadlock. Every writer now takes them in one order (``tests/learning/test_lock_order.py``), and
what rolling back still leaves is a 503 to retry, never a 500.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.processes import phronesis_env, server


def _rate(base: str, response_id: str, rating: str, start: threading.Barrier, errors: list[str]) -> None:
    body = {"response_id": response_id, "rating": rating, "idempotency_key": uuid.uuid4().hex}
    start.wait()
    answer = httpx.post(f"{base}/v1/feedback", json=body, timeout=60)
    if answer.status_code != 200:
        errors.append(answer.text)


def _rate_at_once(base: str, response_id: str, rounds: int) -> None:
    errors: list[str] = []
    for _ in range(rounds):
        start = threading.Barrier(2)
        threads = [
            threading.Thread(target=_rate, args=(base, response_id, rating, start, errors))
            for rating in ("positive", "negative")
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []


def _story(env: dict[str, str]) -> None:
    with server(env) as base, httpx.Client(base_url=base, timeout=60) as http:
        for condition in ("the garden soil is dry", "the living room is too warm", "the front door is open"):
            made = http.post("/v1/heuristics", json={"condition_text": condition, "action_text": "do the obvious",
                                                      "confidence": 0.9})  # fmt: skip
            assert made.status_code == 201, made.text
            heuristic = made.json()["id"]
            for _ in range(100):  # the server's index follows the write within moments
                decided = http.post("/v1/events/decide", json={"text": condition}).json()
                if decided["matched_heuristic_id"] == heuristic:
                    break
                time.sleep(0.1)
            assert decided["matched_heuristic_id"] == heuristic, decided
            _rate_at_once(base, decided["response_id"], rounds=6)
            counts = http.get(f"/v1/heuristics/{heuristic}").json()
            # twelve ratings of one decision: it counts once, as its last rating says
            assert (counts["success_count"], counts["failure_count"]) in ((1, 0), (0, 1)), counts


@pytest.mark.process
@pytest.mark.pgvector
def test_opposite_ratings_at_once_count_once_on_postgres(tmp_path: Path, pgvector_url: str) -> None:
    _story(phronesis_env(tmp_path, PHRONESIS_DATABASE__URL=pgvector_url, PHRONESIS_INDEX__BACKEND="exact"))


@pytest.mark.process
def test_opposite_ratings_at_once_count_once_on_sqlite(tmp_path: Path) -> None:
    _story(phronesis_env(tmp_path))


@pytest.mark.process
@pytest.mark.pgvector
def test_ratings_under_load_while_the_sweep_closes_fires_all_succeed(tmp_path: Path, pgvector_url: str) -> None:
    """Twelve clients alternate ratings on eight shared decisions for 8 s, on four workers, while the
    sweep (a 1 s undo window) closes the fires: every rating is answered 200, and every decision
    counts once, as its record says."""
    env = phronesis_env(
        tmp_path,
        PHRONESIS_DATABASE__URL=pgvector_url,
        PHRONESIS_INDEX__BACKEND="exact",
        PHRONESIS_LEARNING__UNDO_WINDOW_SEC="1",
        PHRONESIS_LEARNING__SWEEP_INTERVAL_SEC="0.2",
    )
    with server(env, "--workers", "4", timeout_s=180) as base, httpx.Client(base_url=base, timeout=60) as http:
        decisions = []
        for n in range(8):
            condition = f"sensor {n} reports a leak in room {n}"
            made = http.post("/v1/heuristics", json={"condition_text": condition, "action_text": "shut the valve",
                                                      "confidence": 0.9})  # fmt: skip
            assert made.status_code == 201, made.text
            for _ in range(100):  # any worker may answer before its index has followed the write
                decided = http.post("/v1/events/decide", json={"text": condition}).json()
                if decided["matched_heuristic_id"] == made.json()["id"]:
                    break
                time.sleep(0.1)
            assert decided["matched_heuristic_id"] == made.json()["id"], decided
            decisions.append((decided["response_id"], made.json()["id"]))
        stop_at, failures, sent = time.monotonic() + 8, [], [0]

        def client(seed: int) -> None:
            rng, positive = random.Random(seed), seed % 2 == 0
            with httpx.Client(base_url=base, timeout=60) as mine:
                while time.monotonic() < stop_at:
                    body = {"response_id": rng.choice(decisions)[0], "rating": "positive" if positive else "negative",
                            "idempotency_key": uuid.uuid4().hex}  # fmt: skip
                    answer = mine.post("/v1/feedback", json=body)
                    sent[0] += 1
                    if answer.status_code != 200:
                        failures.append(f"{answer.status_code} {answer.text[:200]}")
                    positive = not positive

        threads = [threading.Thread(target=client, args=(n,)) for n in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sent[0] > 100 and failures == [], (sent[0], failures[:5])
        for response_id, heuristic_id in decisions:
            counts = http.get(f"/v1/heuristics/{heuristic_id}").json()
            outcome = http.get(f"/v1/decisions/{response_id}").json()["outcome"]
            expected = (1, 0) if outcome == "positive" else (0, 1)
            assert (counts["success_count"], counts["failure_count"]) == expected, (outcome, counts)
