"""Proactive benchmark (seed 004): users per second through the pre-filter and through whole cycles.

Synthetic population (``--sizes``, default 10k and 100k users), documented so it can be
reproduced (seeded):

- timezones: 24 IANA zones from UTC−8 to UTC+12, the big population centres weighted up;
- sleep 22:00–01:00 and wake 06:00–09:00 local, in 30-minute steps;
- relationship age 0–400 days and 0–500 messages (all four trust levels occur); one user in
  ten has been inactive for 30–90 days (demoted);
- signals: every user has one to three pending signals. Types and urgencies follow the
  original's static table (ORIGINS §4): 30% "approaching/overdue/important" at 8, 40% a medium
  set at 5, 30% other types at 3; one signal in ten is context-only;
- recent sends: 40% of users had one to four proactive messages in the last 20 hours, one in
  five of those within the last half hour (cooldown).

The clock is fixed at 12:00 UTC, so about a third of the zones are asleep. Measured:

- **pre-filter**: the set-based reads (due users, profiles, pending signals, recent sends) and
  the rules for every due user, chunk by chunk (``tick_chunk`` 1,000): users/s, p50/p99
  per chunk, no writes;
- **whole cycles**: one scheduler tick over everyone, with the scripted LLM answering every
  candidate request with two candidates (one strong, one borderline) and a recording
  channel: users/s, cycles decided without an LLM call, messages sent, deferred insights.

Both on SQLite and, with ``--postgres URL``, on PostgreSQL (in a database of its own, made on
that server and dropped after).

    cd benchmarks && python bench_proactive.py --sizes 10000,100000 --postgres postgresql+asyncpg://postgres@127.0.0.1/test
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, text
from sqlalchemy.ext.asyncio import create_async_engine

from bench_heuristics import percentile, rss_mb
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.llm.types import LLMRequest
from phronesis.proactive.module import ProactiveModule
from phronesis.proactive.settings import ProactiveSettings
from phronesis.storage.database import Database
from phronesis.storage.migrate import upgrade
from phronesis.storage.tables import proactive_sends, proactive_signals, proactive_users
from phronesis.testing import FixedClock, RecordingChannel, ScriptedLLM

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
TENANT = "bench"
ZONES = [
    ("America/Los_Angeles", 3),
    ("America/Denver", 1),
    ("America/Chicago", 2),
    ("America/New_York", 4),
    ("America/Sao_Paulo", 2),
    ("Atlantic/Azores", 1),
    ("Europe/London", 3),
    ("Europe/Berlin", 3),
    ("Europe/Athens", 1),
    ("Africa/Lagos", 2),
    ("Africa/Nairobi", 1),
    ("Europe/Moscow", 1),
    ("Asia/Dubai", 1),
    ("Asia/Karachi", 2),
    ("Asia/Kolkata", 5),
    ("Asia/Dhaka", 2),
    ("Asia/Bangkok", 2),
    ("Asia/Singapore", 2),
    ("Asia/Shanghai", 5),
    ("Asia/Tokyo", 3),
    ("Australia/Brisbane", 1),
    ("Australia/Sydney", 1),
    ("Pacific/Auckland", 1),
    ("UTC", 1),
]
URGENT = ["calendar_event_approaching", "canvas_overdue", "canvas_deadline_approaching", "email_important_received"]
MEDIUM = ["calendar_busy_day", "calendar_empty_day", "canvas_grade_posted", "habit_streak", "email_followup"]
OTHER = ["memory_recall", "weather", "social_birthday", "news_digest"]
CHUNK = 5000


def population(
    size: int, seed: int = 11, now: datetime = NOW
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(seed)
    zones = [z for z, w in ZONES for _ in range(w)]
    users, signals, sends = [], [], []
    for n in range(size):
        user_id = f"u{n:07d}"
        sleep_minutes = 22 * 60 + 30 * rng.randrange(7)
        wake_minutes = 6 * 60 + 30 * rng.randrange(7)
        idle = rng.random() < 0.1
        users.append(
            {
                "tenant": TENANT,
                "id": user_id,
                "timezone": rng.choice(zones),
                "sleep_time": f"{(sleep_minutes // 60) % 24:02d}:{sleep_minutes % 60:02d}",
                "wake_time": f"{wake_minutes // 60:02d}:{wake_minutes % 60:02d}",
                "created_at": now - timedelta(days=rng.randrange(401)),
                "interaction_count": rng.randrange(501),
                "last_active_at": now - timedelta(days=rng.randrange(30, 91))
                if idle
                else now - timedelta(hours=rng.randrange(48)),
                "last_user_message_at": None,
                "channel": "console",
                "address": None,
                "calendar_url": None,
                "ignored_signal_types": [rng.choice(OTHER)] if rng.random() < 0.2 else [],
                "patterns": [],
                "learned_ignored_types": [],
                "updated_at": now,
            }
        )
        for k in range(rng.randint(1, 3)):
            roll = rng.random()
            kind, urgency = (
                (rng.choice(URGENT), 8)
                if roll < 0.3
                else (rng.choice(MEDIUM), 5)
                if roll < 0.7
                else (rng.choice(OTHER), 3)
            )
            due = now + timedelta(minutes=rng.randrange(20, 48 * 60))
            signals.append(
                {
                    "tenant": TENANT,
                    "id": uuid.uuid4().hex,
                    "user_id": user_id,
                    "type": kind,
                    "urgency_hint": urgency,
                    "data": {"title": f"{kind.replace('_', ' ')} {n}-{k}", "due": due.isoformat()},
                    "context_only": rng.random() < 0.1,
                    "dedup_key": f"{kind}:{n}:{k}",
                    "created_at": now - timedelta(minutes=rng.randrange(60)),
                    "expires_at": now + timedelta(days=1),
                    "consumed_at": None,
                    "cycle_key": None,
                }
            )
        if rng.random() < 0.4:
            recent = rng.random() < 0.2
            for k in range(rng.randint(1, 4)):
                ago = (
                    timedelta(minutes=rng.randrange(1, 30))
                    if recent and k == 0
                    else timedelta(hours=rng.uniform(0.6, 20))
                )
                sends.append(
                    {
                        "tenant": TENANT,
                        "id": uuid.uuid4().hex,
                        "user_id": user_id,
                        "cycle_key": f"old{k}",
                        "message": f"an earlier message {n}-{k}",
                        "category": "briefing",
                        "trigger_signals": ["news_digest"],
                        "action_type": "text",
                        "channel": "console",
                        "score": 6.0,
                        "probability": 1.0,
                        "delivery_status": "sent",
                        "delivery_detail": None,
                        "sent_at": now - ago,
                        "outcome": "engaged",
                        "response_latency_seconds": 60.0,
                        "outcome_at": now - ago + timedelta(minutes=1),
                    }
                )
    return users, signals, sends


async def fill(database: Database, size: int, now: datetime = NOW) -> float:
    started = time.perf_counter()
    users, signals, sends = population(size, now=now)
    for table, rows in ((proactive_users, users), (proactive_signals, signals), (proactive_sends, sends)):
        for start in range(0, len(rows), CHUNK):
            async with database.transaction() as conn:
                await conn.execute(insert(table), rows[start : start + CHUNK])
    return time.perf_counter() - started


def scripted_candidates(request: LLMRequest) -> str:
    """Two candidates per call: one clearly worth sending, one borderline (deferred or explored)."""
    n = abs(hash(request.prompt)) % 10_000
    return json.dumps(
        {
            "candidates": [
                {
                    "message": f"Heads-up {n}: you have a window after lunch for it.",
                    "category": "deadline_warning",
                    "relevance": 8,
                    "timing": 7,
                    "urgency": 7,
                    "trigger_signals": ["canvas_deadline_approaching"],
                },
                {
                    "message": f"Idea {n}: the gym is quiet this evening.",
                    "category": "habit",
                    "relevance": 5,
                    "timing": 5,
                    "urgency": 4,
                    "trigger_signals": ["habit_streak"],
                },
            ]
        }
    )


def module(database: Database, llm: ScriptedLLM | None, channel: RecordingChannel) -> ProactiveModule:
    clock = FixedClock(NOW)
    return ProactiveModule(
        ProactiveSettings(seed=5, scheduler=False),
        database=database,
        llm=llm,
        decisions=DecisionRecordRepository(database, clock=clock),
        clock=clock,
        channels={"console": channel},
    )


async def prefilter_pass(proactive: ProactiveModule) -> tuple[int, list[float], dict[str, int]]:
    ticker, latencies, users = proactive.ticker, [], 0
    reasons: dict[str, int] = {}
    async for ids in ticker.due_chunks(TENANT, NOW, None):  # the tick's own keyset pages
        started = time.perf_counter()
        screened = await ticker.screen(TENANT, ids, NOW)
        latencies.append((time.perf_counter() - started) * 1000)
        users += len(screened)
        for s, _ in screened:
            reasons[s.reason or "passed"] = reasons.get(s.reason or "passed", 0) + 1
    return users, latencies, reasons


async def reset(database: Database) -> None:
    """The benchmark tenant's proactive rows and records, gone (a run starts from its population)."""
    async with database.transaction() as conn:
        for table in (
            "proactive_sends",
            "proactive_signals",
            "proactive_deferred_insights",
            "proactive_suppressions",
            "proactive_counters",
            "proactive_users",
            "decision_records",
        ):
            await conn.execute(text(f"DELETE FROM {table} WHERE tenant = :t"), {"t": TENANT})


async def bench(url: str, size: int, label: str) -> list[str]:
    database = Database(url)
    await upgrade(database)
    await reset(database)
    fill_s = await fill(database, size)
    if database.dialect == "postgresql":  # statistics, as autovacuum keeps them in a running system
        async with database.connect() as conn:
            await conn.execute(text("ANALYZE"))
    channel = RecordingChannel()
    llm = ScriptedLLM(scripted_candidates)
    proactive = module(database, llm, channel)

    runs = []
    for _ in range(3):
        started = time.perf_counter()
        users, chunk_ms, reasons = await prefilter_pass(proactive)
        runs.append((users / (time.perf_counter() - started), chunk_ms))
    best_rate, chunk_ms = max(runs, key=lambda r: r[0])
    passed = reasons.get("passed", 0)

    started = time.perf_counter()
    report = await proactive.tick(TENANT)
    tick_s = time.perf_counter() - started
    memory = rss_mb()
    await proactive.close()
    await database.dispose()
    blocked = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()) if k != "passed")
    return [
        f"| {label} | {size:,} | {fill_s:.0f} s | {best_rate:,.0f} | {percentile(chunk_ms, 50):.0f} | "
        f"{percentile(chunk_ms, 99):.0f} | {passed / users:.0%} | {report.users / tick_s:,.0f} | "
        f"{report.decided_without_llm:.1%} | {report.llm_calls:,} | {report.sent:,} | {memory:,.0f} MB |",
        f"|   | blocked: {blocked} | | | | | | | | | | |",
    ]


async def admin(url: str, statement: str) -> None:
    """A statement outside a transaction (CREATE/DROP DATABASE) on the server of ``url``."""
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
    async with engine.connect() as conn:
        await conn.execute(text(statement))
    await engine.dispose()


@contextlib.asynccontextmanager
async def own_database(url: str) -> AsyncIterator[str]:
    """A fresh database on ``url``'s server for one benchmark (no other run's rows or bloat)."""
    server = url.rsplit("/", 1)[0]
    name = f"phx_bench_{uuid.uuid4().hex[:8]}"
    await admin(url, f'CREATE DATABASE "{name}"')
    try:
        yield f"{server}/{name}"
    finally:
        await admin(url, f'DROP DATABASE "{name}" WITH (FORCE)')


async def main_async(args: argparse.Namespace) -> None:
    sizes = [int(s) for s in args.sizes.split(",")]
    lines = [
        "| database | users | fill | pre-filter users/s | p50 ms / 1k chunk | p99 ms / 1k chunk | passed "
        "| whole-cycle users/s | decided without LLM | LLM calls | sent | memory |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-proactive-", dir=args.scratch) as scratch:
        for size in sizes:
            path = Path(scratch) / f"proactive-{size}.db"
            lines += await bench(f"sqlite+aiosqlite:///{path}", size, "SQLite")
            print("\n".join(lines[-2:]), flush=True)  # a row as soon as it is measured
            path.unlink(missing_ok=True)
            if args.postgres:
                async with own_database(args.postgres) as url:
                    lines += await bench(url, size, "PostgreSQL")
                print("\n".join(lines[-2:]), flush=True)
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--postgres", default=None, help="Also run on this PostgreSQL server (a database of its own).")
    parser.add_argument("--scratch", type=Path, default=None)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
