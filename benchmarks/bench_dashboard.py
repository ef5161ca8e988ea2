"""The dashboard's server time over a million decision records (issue 25).

Fills a fresh database (SQLite file, and PostgreSQL with ``--postgres URL``) with ``--records``
decision records of one tenant over the last 30 days — the six kinds with their paths and
outcomes, latencies, LLM calls and tokens — then asks each page ``--requests`` times through
the app in process (``httpx.ASGITransport``: the server's time, no network) and prints p50 / p99.
Goal: p99 ≤ 300 ms per page. Then a what-if replay of the routing cascade threshold over the
routing quarter of the records (cascade decisions, 10 % rated): goal ≤ 10 s for 100,000.

    python benchmarks/bench_dashboard.py [--records 1000000] [--postgres postgresql+asyncpg://…/test]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert, text

from bench_heuristics import percentile
from bench_proactive import admin, own_database
from phronesis.api.app import create_app
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.replay import ReplayIn, run_replay
from phronesis.settings import Settings
from phronesis.storage.tables import decision_records

TENANT = "default"
KINDS: dict[str, tuple[float, list[str], list[str]]] = {
    # kind: (share, paths, actions)
    "executive": (0.30, ["heuristic", "llm", "fallback", "rejected"], []),
    "routing": (0.25, ["local", "llm", "rule"], ["RETRIEVE", "REASON_ONLY", "USE_TOOL", "CLARIFY", "ESCALATE"]),
    "admission": (0.15, ["llm", "rule", "local"], ["ADD", "NOT", "REPLACE", "MERGE"]),
    "proactive": (0.25, ["cycle", "prefilter"], ["sent", "deferred", "silent"]),
    "learning": (0.05, ["feedback"], []),
}
REASONS = ["quiet_hours", "cap_reached", "muted", "no_signals", "below_threshold", "opted_out"]
PAGES = [
    "/ui?days=14",
    "/ui?days=30",
    "/ui/decisions",
    "/ui/decisions?kind=routing&action=CLARIFY",
    "/ui/decisions?kind=proactive&path=cycle&since={week_ago}",
    "/ui/decisions?subject=subject-77",
    "/ui/decisions?q=do+thing+4242",  # the last day, by default
    "/ui/decisions?q=do+thing+4242&since={week_ago}",
    "/ui/decisions/{some_id}",
]


def _rows(count: int, start: int, now: datetime, rng: random.Random) -> list[dict[str, Any]]:
    kinds = list(KINDS)
    weights = [KINDS[k][0] for k in kinds]
    rows = []
    for i in range(start, start + count):
        kind = rng.choices(kinds, weights)[0]
        _, paths, actions = KINDS[kind]
        path = rng.choice(paths)
        llm = path == "llm"
        action = rng.choice(actions) if actions else f"do thing {rng.randint(1, 5000)}"
        strategy, attributes, outcome = None, {}, None
        if kind == "routing":  # cascade decisions with the local router's prediction, 10 % rated
            strategy = "cascade"
            probability = rng.random()
            path = "local" if probability >= 0.75 else "llm"
            llm = path == "llm"
            attributes = {"local": {"decision": rng.choice(actions), "probability": probability, "abstained": None}}
            if rng.random() < 0.1:
                outcome = rng.choice(["correct", "incorrect"])
                if outcome == "incorrect":
                    attributes["route_feedback"] = {"correct": False, "expected_decision": rng.choice(actions)}
        rows.append(
            {
                "id": f"d{i:08}",
                "tenant": TENANT,
                "kind": kind,
                "subject_id": f"subject-{rng.randint(1, 20000)}",
                "strategy": strategy,
                "path": path,
                "action": action,
                "confidence": rng.random(),
                "inputs": {"text": f"input {i}"},
                "prompt": None,
                "raw_llm_output": None,
                "model": "gpt" if llm else None,
                "latency_ms": rng.lognormvariate(2.5, 0.6) * (40 if llm else 1),
                "prompt_tokens": rng.randint(200, 900) if llm else None,
                "completion_tokens": rng.randint(20, 200) if llm else None,
                "llm_calls": 1 if llm else 0,
                "reason": rng.choice(REASONS) if kind == "proactive" and action != "sent" else None,
                "outcome": outcome,
                "outcome_at": None,
                "attributes": attributes,
                "created_at": now - timedelta(seconds=rng.uniform(0, 30 * 86400)),
            }
        )
    return rows


async def _fill(engine: Engine, url: str, records: int, now: datetime) -> float:
    rng = random.Random(7)
    started = time.perf_counter()
    chunk = 20_000
    for start in range(0, records, chunk):
        rows = _rows(min(chunk, records - start), start, now, rng)
        async with engine.database.transaction() as conn:
            await conn.execute(insert(decision_records), rows)
    if engine.database.dialect == "postgresql":
        await admin(url, "VACUUM ANALYZE decision_records")  # autovacuum is off on this machine
    else:
        async with engine.database.transaction() as conn:
            await conn.execute(text("ANALYZE"))
    return time.perf_counter() - started


async def bench(url: str, label: str, records: int, requests: int) -> list[str]:
    settings = Settings(
        database={"url": url},
        embeddings={"spec": "hashing:384"},
        api={"dev_mode": True, "warm_up": False},
        proactive={"scheduler": False},
    )
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=None)
    await engine.start()
    now = datetime.now(UTC)
    fill = await _fill(engine, url, records, now)
    await engine.close()
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=None)
    app = create_app(engine, close_engine=True)
    lines = []
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://b") as client:
        started = time.perf_counter()
        await client.get("/ui?days=30")  # the first view rolls up every closed hour (audit.rollups)
        lines.append(f"| {label} | {records:,} | /ui?days=30, first view (rolls up 30 days) | "
                     f"{(time.perf_counter() - started) * 1000:.0f} | |")  # fmt: skip
        for page in PAGES:
            week_ago = (now - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
            path = page.format(week_ago=week_ago, some_id=f"d{records // 2:08}")
            times = []
            for n in range(requests + 2):
                started = time.perf_counter()
                response = await client.get(path)
                elapsed = (time.perf_counter() - started) * 1000
                if response.status_code != 200:
                    raise SystemExit(f"{path}: {response.status_code} {response.text[:200]}")
                if n >= 2:  # the first two warm the caches
                    times.append(elapsed)
            lines.append(
                f"| {label} | {records:,} | {path.split('?')[0]}{'?' + path.split('?')[1] if '?' in path else ''} "
                f"| {percentile(times, 50):.1f} | {percentile(times, 99):.1f} |"
            )
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=None)
    await engine.start()
    try:
        body = ReplayIn(decision_point="routing", parameter="cascade_threshold", value=0.6, days=31)
        started = time.perf_counter()
        report = await run_replay(engine, TENANT, body)
        replay_s = time.perf_counter() - started
    finally:
        await engine.close()
    lines.append(
        f"| {label} | {records:,} | replay routing.cascade_threshold 0.75 → 0.6 over {report.decisions:,} "
        f"cascade decisions ({report.changed:,} change, {report.replayed_success.covered:,} covered) | "
        f"{replay_s * 1000:.0f} | |"
    )
    lines.append(f"| {label} | {records:,} | (fill: {fill:.0f} s) | | |")
    return lines


async def main_async(args: argparse.Namespace) -> None:
    lines = ["| database | records | page | p50 ms | p99 ms |", "|---|---:|---|---:|---:|"]
    with tempfile.TemporaryDirectory(prefix="bench-dashboard-") as scratch:
        lines += await bench(f"sqlite+aiosqlite:///{Path(scratch) / 'dash.db'}", "SQLite", args.records, args.requests)
    if args.postgres:
        async with own_database(args.postgres) as url:
            lines += await bench(url, "PostgreSQL", args.records, args.requests)
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--postgres", help="also on PostgreSQL (a fresh database on this server)")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
