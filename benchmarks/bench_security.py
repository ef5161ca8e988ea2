"""Issue 49's measurements through real servers: last click wins under load, and a big upload
does not starve decisions.

1. **Ratings at once** (``--postgres URL``; a database of its own): ``phronesis serve --workers 4``
   on PostgreSQL; ``--decisions`` fired decisions (one heuristic each); ``--clients`` threads for
   ``--seconds`` each rate random decisions, alternating positive and negative, every rating with
   its own idempotency key. Then each decision's heuristic must count exactly one rating, the one
   its record says (goal: **0** decisions whose counters disagree).
2. **Upload beside decisions**: one server (SQLite), a sequential decide loop; its p99 idle, then
   while another client keeps posting 9.5 MB document batches (refused before any embedding:
   ``api.max_passages_per_request``). Goal: loaded p99 within **2×** idle p99.

The hashing embedder keeps embedding out of both (neither measures the model).

    cd benchmarks && python bench_security.py --postgres postgresql+asyncpg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

from bench_heuristics import percentile
from bench_http import serve, stop
from bench_proactive import own_database

KEY = "sk-bench-security"


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "PHRONESIS_DATA_DIR": str(data_dir), "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384",
            "PHRONESIS_API__KEYS": json.dumps({KEY: "bench"}), "PHRONESIS_LOG_LEVEL": "warning",
            "PHRONESIS_PROACTIVE__SCHEDULER": "false", **extra}  # fmt: skip


def _fired(http: httpx.Client, n: int) -> list[tuple[str, str]]:
    """``n`` decisions that fired a heuristic each: (response id, heuristic id)."""
    out = []
    for i in range(n):
        condition = f"sensor {i} reports condition {uuid.uuid4().hex[:6]}"
        made = http.post("/v1/heuristics", json={"condition_text": condition, "action_text": "act", "confidence": 0.9})
        made.raise_for_status()
        for _ in range(200):
            decided = http.post("/v1/events/decide", json={"text": condition}).json()
            if decided["matched_heuristic_id"] == made.json()["id"]:
                out.append((decided["response_id"], made.json()["id"]))
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("the heuristic never fired")
    return out


def ratings(args: argparse.Namespace, url: str, scratch: Path) -> str:
    env = _env(scratch / "ratings", PHRONESIS_DATABASE__URL=url, PHRONESIS_INDEX__BACKEND="exact")
    process, base = serve(env, 4, scratch / "ratings.log", timeout_s=300)
    headers = {"authorization": f"Bearer {KEY}"}
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            decisions = _fired(http, args.decisions)
        stop_at, sent, errors = time.monotonic() + args.seconds, [0], [0]
        lock = threading.Lock()

        def client(seed: int) -> None:
            rng, positive = random.Random(seed), seed % 2 == 0
            with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
                while time.monotonic() < stop_at:
                    response_id, _ = rng.choice(decisions)
                    body = {"response_id": response_id, "rating": "positive" if positive else "negative",
                            "idempotency_key": uuid.uuid4().hex}  # fmt: skip
                    ok = http.post("/v1/feedback", json=body).status_code == 200
                    positive = not positive
                    with lock:
                        sent[0] += 1
                        errors[0] += not ok

        threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        disagree = 0
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            for response_id, heuristic_id in decisions:
                h = http.get(f"/v1/heuristics/{heuristic_id}").json()
                outcome = http.get(f"/v1/decisions/{response_id}").json().get("outcome")
                expected = (1, 0) if outcome == "positive" else (0, 1)
                disagree += (h["success_count"], h["failure_count"]) != expected
    finally:
        stop(process)
    return (f"| ratings at once, PostgreSQL, 4 workers | {args.clients} clients × {args.seconds:g} s on "
            f"{args.decisions} decisions | {sent[0]} ratings ({sent[0] / args.seconds:.0f}/s, {errors[0]} refused) "
            f"| {disagree} decisions whose counters disagree (goal 0) |")  # fmt: skip


def upload(args: argparse.Namespace, scratch: Path) -> str:
    process, base = serve(_env(scratch / "upload"), 1, scratch / "upload.log", timeout_s=300)
    headers = {"authorization": f"Bearer {KEY}"}
    text = " ".join(f"Fact {n} holds." for n in range(1200))  # ~19 kB, ~1,200 sentences
    batch = json.dumps({"documents": [{"text": text} for _ in range(480)]}).encode()  # ~9.5 MB
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=120) as http:
            http.post("/v1/heuristics", json={"condition_text": "the door is open", "action_text": "close it"})

            def p99(count: int) -> float:
                took = []
                for _ in range(count):
                    started = time.perf_counter()
                    http.post("/v1/events/decide", json={"text": "the door is open"}).raise_for_status()
                    took.append((time.perf_counter() - started) * 1000)
                return percentile(sorted(took), 99)

            idle = p99(args.decides)
            done, statuses = threading.Event(), []

            def uploader() -> None:
                with httpx.Client(base_url=base, headers=headers | {"content-type": "application/json"},
                                  timeout=120) as up:  # fmt: skip
                    while not done.is_set():
                        statuses.append(up.post("/v1/documents", content=batch).status_code)

            thread = threading.Thread(target=uploader)
            thread.start()
            time.sleep(1.0)
            loaded = p99(args.decides)
            done.set()
            thread.join()
    finally:
        stop(process)
    return (f"| 9.5 MB uploads beside decisions, SQLite, 1 worker | decide p99 idle {idle:.1f} ms | "
            f"with uploads {loaded:.1f} ms ({loaded / idle:.2f}×, goal ≤ 2×) | {len(statuses)} uploads, answers "
            f"{sorted(set(statuses))} |")  # fmt: skip


async def main_async(args: argparse.Namespace) -> None:
    rows = ["| measurement | load | result | goal |", "|---|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="bench-security-") as tmp:
        scratch = Path(tmp)
        if args.postgres:
            async with own_database(args.postgres) as url:
                rows.append(await asyncio.to_thread(ratings, args, url, scratch))
        rows.append(await asyncio.to_thread(upload, args, scratch))
    print("\n".join(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--postgres", help="the ratings race on this PostgreSQL server (a database of its own)")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--decisions", type=int, default=16)
    parser.add_argument("--decides", type=int, default=300)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
