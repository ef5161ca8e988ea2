"""Issue 49's measurements through real servers: last click wins under load, and a big upload
does not starve decisions.

1. **Ratings at once** (``--postgres URL``; a database of its own): ``phronesis serve --workers 4``
   on PostgreSQL; ``--decisions`` fired decisions (one heuristic each); ``--clients`` threads for
   ``--seconds`` each rate random decisions, alternating positive and negative, every rating with
   its own idempotency key. Then each decision's heuristic must count exactly one rating, the one
   its record says (goal: **0** decisions whose counters disagree).
2. **Upload beside decisions**: one server (SQLite, one worker), a sequential decide loop: its p99
   idle, then while a ~10 MB batch of documents submitted as a job (``POST /v1/documents/jobs``) is
   stored in the background, until the job has ended. Goal: p99 during the job within **2×** idle.

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


def _prose(n: int) -> str:
    """A document of 120 ordinary sentences (15 words each), about 13 kB."""
    words = ("the", "team", "reviewed", "each", "invoice", "against", "the", "signed", "order", "and", "noted",
             "every", "difference")  # fmt: skip
    sentences = (" ".join(words[(i + j) % len(words)] for j in range(15)) for i in range(120))
    return " ".join(f"Entry {n}.{i}: {sentence}." for i, sentence in enumerate(sentences))


def upload(args: argparse.Namespace, scratch: Path, url: str | None) -> str:
    """One ~10 MB batch submitted as a job, a decide loop beside it until the job has ended: on
    PostgreSQL with 4 workers where ``url`` is given, else on SQLite with one."""
    where = {"PHRONESIS_DATABASE__URL": url, "PHRONESIS_INDEX__BACKEND": "exact"} if url else {}
    name = "upload-postgres" if url else "upload"
    env = _env(scratch / name, PHRONESIS_EMBEDDINGS__SPEC=args.embeddings, **where)
    process, base = serve(env, 4 if url else 1, scratch / f"{name}.log", timeout_s=300)
    headers = {"authorization": f"Bearer {KEY}"}
    batch = json.dumps({"documents": [{"text": _prose(n)} for n in range(args.upload_documents)]}).encode()
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=120) as http:
            http.post("/v1/heuristics", json={"condition_text": "the door is open", "action_text": "close it"})

            def decide() -> float:
                started = time.perf_counter()
                http.post("/v1/events/decide", json={"text": "the door is open"}).raise_for_status()
                return (time.perf_counter() - started) * 1000

            idle = sorted(decide() for _ in range(args.decides))
            started = time.monotonic()
            submitted = http.post("/v1/documents/jobs", content=batch, headers={"content-type": "application/json"})
            submitted.raise_for_status()
            job, loaded, polled = submitted.json(), [], time.monotonic()
            while job["status"] in ("queued", "running"):
                loaded.append(decide())
                if time.monotonic() - polled > 1.0:
                    job, polled = http.get(f"/v1/documents/jobs/{job['id']}").json(), time.monotonic()
            took = time.monotonic() - started
    finally:
        stop(process)
    idle_p99, loaded_p99 = percentile(idle, 99), percentile(sorted(loaded), 99)
    backend = "PostgreSQL, 4 workers" if url else "SQLite, 1 worker"
    return (f"| {len(batch) / 1e6:.1f} MB of documents as a job beside decisions, {backend}, "
            f"{args.embeddings} | "
            f"decide p99 idle {idle_p99:.1f} ms, p50 {percentile(idle, 50):.1f} ms | during the job "
            f"{loaded_p99:.1f} ms ({loaded_p99 / idle_p99:.2f}×, goal ≤ 2×), "
            f"p50 {percentile(sorted(loaded), 50):.1f} ms,"
            f" {len(loaded)} decisions | job {job['status']}: {job['documents_done']} documents, "
            f"{job['passages_done']} passages in {took:.0f} s |")  # fmt: skip


async def main_async(args: argparse.Namespace) -> None:
    rows = ["| measurement | load | result | goal |", "|---|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="bench-security-") as tmp:
        scratch = Path(tmp)
        if args.postgres and args.only != "upload":
            async with own_database(args.postgres) as url:
                rows.append(await asyncio.to_thread(ratings, args, url, scratch))
        if args.postgres and args.only != "ratings":
            async with own_database(args.postgres) as url:
                rows.append(await asyncio.to_thread(upload, args, scratch, url))
        if args.only != "ratings":
            rows.append(await asyncio.to_thread(upload, args, scratch, None))
    print("\n".join(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--postgres", help="the ratings race on this PostgreSQL server (a database of its own)")
    parser.add_argument("--only", choices=["ratings", "upload"], help="one measurement only")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--decisions", type=int, default=16)
    parser.add_argument("--decides", type=int, default=300)
    parser.add_argument("--embeddings", default="hashing:384", help="the upload's embedder (local: the real model)")
    parser.add_argument("--upload-documents", type=int, default=760, help="~13 kB each (760: ~10 MB)")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
