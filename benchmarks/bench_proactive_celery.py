"""A distributed proactive tick (seed 004, issue 24): 100k users on PostgreSQL, 1 and 2 Celery workers.

The population is ``bench_proactive``'s (seeded, documented there), built around the real present
so the workers' real clocks find it due: about two thirds of the due users pass the pre-filter
(how many exactly depends on the time of day: a third of the zones are asleep at 12:00 UTC).
Each run starts from a freshly filled tenant, starts N ``phronesis worker --concurrency 1``
processes (Redis broker), warms them, then enqueues one ``phronesis.proactive.tick`` task, as
beat does, and measures until every due user's cycle is counted (``proactive_counters``).

Candidates come from templates (``PHRONESIS_PROACTIVE__CANDIDATES=templates``): a scripted LLM
would have to be an HTTP server in this process, and on two cores it would be measured instead
of the workers. ``bench_proactive.py`` measures whole cycles with the scripted LLM in process.

    cd benchmarks && python bench_proactive_celery.py --postgres postgresql+asyncpg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import redis
from sqlalchemy import func, select

from bench_proactive import TENANT, admin, fill, own_database, reset
from phronesis.processes.celery_app import OUTBOX_TASK, TICK_TASK, create_celery
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.storage.migrate import upgrade
from phronesis.storage.tables import proactive_counters, proactive_signals

BROKER = "redis://127.0.0.1:6379/14"


async def prepare(url: str, size: int) -> tuple[int, float]:
    """A filled tenant; how many users are due (a live concrete signal) and the fill's seconds."""
    database = Database(url)
    await upgrade(database)
    await reset(database)
    now = datetime.now(UTC)
    fill_s = await fill(database, size, now=now)
    c = proactive_signals.c
    async with database.connect() as conn:
        due = (
            await conn.execute(
                select(func.count(func.distinct(c.user_id))).where(
                    c.tenant == TENANT, c.consumed_at.is_(None), c.expires_at > now, c.context_only.is_(False)
                )
            )
        ).scalar_one()
    await database.dispose()
    await admin(url, "VACUUM ANALYZE")  # what autovacuum does after a reset and a fill (it is off on this server)
    return int(due), fill_s


async def counted(url: str) -> tuple[int, int]:
    """(cycles counted, messages sent) so far."""
    database = Database(url)
    c = proactive_counters.c
    async with database.connect() as conn:
        rows = dict(
            (await conn.execute(select(c.name, func.sum(c.value)).where(c.tenant == TENANT).group_by(c.name))).all()
        )
    await database.dispose()
    cycles = sum(int(v) for k, v in rows.items() if k.startswith("cycle:"))
    return cycles, int(rows.get("delivery:sent", 0))


def run(url: str, size: int, workers: int, scratch: Path) -> str:
    due, fill_s = asyncio.run(prepare(url, size))
    queue = f"phronesis-bench-{uuid.uuid4().hex[:8]}"
    env = os.environ | {
        "PHRONESIS_DATA_DIR": str(scratch),
        "PHRONESIS_DATABASE__URL": url,
        "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384",
        "PHRONESIS_LLM__SPEC": "none",
        "PHRONESIS_PROACTIVE__BROKER_URL": BROKER,
        "PHRONESIS_PROACTIVE__QUEUE": queue,
        "PHRONESIS_PROACTIVE__CANDIDATES": "templates",
        "PHRONESIS_PROACTIVE__SCHEDULER": "false",
    }
    os.environ.update({k: v for k, v in env.items() if k.startswith("PHRONESIS_")})
    log = (scratch / f"workers-{workers}.log").open("wb")
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "phronesis", "worker", "--concurrency", "1", "--loglevel", "warning"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        for _ in range(workers)
    ]
    try:
        celery = create_celery(Settings())
        for _ in range(4 * workers):  # each process builds its engine on its first task
            celery.send_task(OUTBOX_TASK, queue=queue)
        deadline = time.monotonic() + 120
        while redis.Redis.from_url(BROKER).llen(queue) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(3)
        started = time.perf_counter()
        celery.send_task(TICK_TASK, kwargs={"at": datetime.now(UTC).isoformat()}, queue=queue)
        cycles = sent = 0
        progressed = started
        while cycles < due and time.perf_counter() - progressed < 60:  # a minute without progress: stop
            time.sleep(0.5)
            now_cycles, sent = asyncio.run(counted(url))
            if now_cycles > cycles:
                cycles, progressed = now_cycles, time.perf_counter()
                print(
                    f"  {workers} workers: {cycles:,} of {due:,} cycles after {progressed - started:.1f} s", flush=True
                )
        elapsed = progressed - started
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=60)
        redis.Redis.from_url(BROKER).delete(queue)
        log.close()
    rate = cycles / elapsed
    return (
        f"| {workers} | {size:,} | {fill_s:.0f} s | {due:,} | {cycles:,} | {sent:,} | {elapsed:.1f} s | "
        f"{rate:,.0f} | {rate / workers:,.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", required=True, help="A PostgreSQL server URL; a database of its own is made.")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--workers", default="1,2")
    args = parser.parse_args()
    lines = [
        "| workers | users | fill | due | cycles | sent | tick | users/s | users/s per worker |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    async def every_run() -> None:
        async with own_database(args.postgres) as url:
            with tempfile.TemporaryDirectory(prefix="bench-celery-") as scratch:
                for workers in (int(w) for w in args.workers.split(",")):
                    lines.append(await asyncio.to_thread(run, url, args.size, workers, Path(scratch)))
                    print(lines[-1], flush=True)

    asyncio.run(every_run())
    print("\n".join(lines))


if __name__ == "__main__":
    main()
