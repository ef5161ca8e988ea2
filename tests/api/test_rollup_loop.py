"""The server rolls up the dashboard's finished hours on its own clock (``audit.rollup_interval_s``):
a first view over months of records no longer makes them while the user waits."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.audit.rollups import MARGIN, DecisionRollups, hour_of
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.server import create_app
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.testing import FixedClock
from tests.loopback import serving_app


def _settings(data_dir: Path, interval: float) -> Settings:
    return Settings(
        data_dir=data_dir,
        embeddings={"spec": "hashing:384"},
        audit={"rollup_interval_s": interval},
        proactive={"scheduler": False},
    )


async def _seed(data_dir: Path) -> None:
    """Records from three to ten hours ago, written before the server starts (another process)."""
    engine = Engine(_settings(data_dir, 0.0), embedder=HashingEmbedder(384), llm=None)
    await engine.start()
    try:
        now = datetime.now(UTC)
        for n in range(8):
            records = DecisionRecordRepository(engine.database, clock=FixedClock(now - timedelta(hours=3 + n)))
            await records.write(NewDecisionRecord(id=f"r{n}", tenant="default", kind="routing", path="local"))
    finally:
        await engine.close()


async def _mark(data_dir: Path) -> int | None:
    """The tenant's rollup mark, read by a process of its own (a connection opened and closed)."""
    database = Database(_settings(data_dir, 0.0).database_url())
    try:
        return await DecisionRollups(database).until("default")
    finally:
        await database.dispose()


def _wait_for_mark(data_dir: Path, seconds: float) -> int | None:
    deadline = time.monotonic() + seconds
    with ThreadPoolExecutor(1) as pool:
        while True:
            mark = pool.submit(asyncio.run, _mark(data_dir)).result()
            if mark is not None or time.monotonic() > deadline:
                return mark
            time.sleep(0.2)


def test_the_server_rolls_up_finished_hours_without_a_page_asking(tmp_path: Path) -> None:
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _seed(tmp_path)).result()
    engine = Engine(_settings(tmp_path, 0.5), embedder=HashingEmbedder(384), llm=None)
    with serving_app(create_app(engine, close_engine=True)) as base_url:
        mark = _wait_for_mark(tmp_path, 15.0)
        scraped = httpx.get(f"{base_url}/metrics", timeout=30).text
    assert mark is not None and mark >= hour_of(datetime.now(UTC) - MARGIN) - 1
    # issue 52: /metrics had no decision counters; the rollups' are there, every tenant's
    assert 'phronesis_decisions{kind="routing",path="local"} 8.0' in scraped
    assert 'phronesis_decision_llm_calls{kind="routing"} 0.0' in scraped


def test_with_the_interval_at_zero_nothing_rolls_up_until_asked(tmp_path: Path) -> None:
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _seed(tmp_path)).result()
    engine = Engine(_settings(tmp_path, 0.0), embedder=HashingEmbedder(384), llm=None)
    with serving_app(create_app(engine, close_engine=True)):
        assert _wait_for_mark(tmp_path, 1.5) is None
