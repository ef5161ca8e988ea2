"""Hourly rollups of decision records (``audit.rollups``, issue 25): each record counted once,
whether its hour is rolled up or still live, on every backend and with many processes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import func, select

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.audit.rollups import LATENCY_BOUNDS_MS, MARGIN, DecisionRollups, hour_of, percentile_bound
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_rollups
from phronesis.testing import FixedClock
from phronesis.ui.queries import DashboardQueries

NOW = datetime(2026, 11, 26, 15, 0, tzinfo=UTC)


async def _record(database: Database, at: datetime, n: int, **fields: object) -> None:
    await DecisionRecordRepository(database, clock=FixedClock(at)).write(
        NewDecisionRecord(id=f"r{n}", tenant="t", kind="routing", path="local", action="RETRIEVE", **fields)  # type: ignore[arg-type]
    )


async def test_a_record_is_counted_once_whether_its_hour_is_rolled_up_or_live(database: Database) -> None:
    for n in range(48):  # one an hour over the last two days, the last one 30 minutes ago
        await _record(database, NOW - timedelta(hours=n, minutes=30), n, latency_ms=float(n + 1))
    queries = DashboardQueries(database)
    first = await queries.overview("t", NOW, 3)
    assert sum(first.per_day["routing"]) == 48 and first.kinds[0].decisions == 48
    assert await DecisionRollups(database).until("t") == hour_of(NOW - MARGIN)
    await _record(database, NOW - timedelta(minutes=10), 100, latency_ms=5000.0)  # in a live hour
    later = await queries.overview("t", NOW + timedelta(hours=5), 3)  # those hours are rolled up now
    assert sum(later.per_day["routing"]) == 49 and later.kinds[0].decisions == 49
    async with database.connect() as conn:
        rolled = (await conn.execute(select(func.sum(decision_rollups.c.decisions)))).scalar_one()
    assert rolled == 49
    assert (later.kinds[0].p50_ms, later.kinds[0].p99_ms) == (30.0, 50.0)  # 1..48 ms and one of 5 s


async def test_concurrent_rollups_insert_each_hour_once(database: Database) -> None:
    """Two workers open the overview at once. The tenant's mark row is locked while they roll up;
    without that lock both inserted the same hours (a primary-key violation on PostgreSQL)."""
    for n in range(30):
        await _record(database, NOW - timedelta(hours=n + 3), n)
    await DecisionRollups(database).ensure("t", NOW - timedelta(hours=20))  # the mark row exists
    targets = await asyncio.gather(*(DecisionRollups(database).ensure("t", NOW) for _ in range(3)))
    assert set(targets) == {hour_of(NOW - MARGIN)}
    async with database.connect() as conn:
        rolled = (await conn.execute(select(func.sum(decision_rollups.c.decisions)))).scalar_one()
    assert rolled == 30


@given(st.lists(st.sampled_from([0.5, 4.0, 12.0, 80.0, 2500.0, 99_999.0]), min_size=1, max_size=50))
def test_a_percentile_is_the_bound_of_the_bucket_holding_it(latencies: list[float]) -> None:
    counts: dict[int, int] = {}
    for ms in latencies:
        bucket = next((i for i, bound in enumerate(LATENCY_BOUNDS_MS) if ms <= bound), len(LATENCY_BOUNDS_MS))
        counts[bucket] = counts.get(bucket, 0) + 1
    for q in (0.5, 0.99):
        exact = sorted(latencies)[int(q * (len(latencies) - 1))]
        bound = percentile_bound(counts, q)
        assert bound is not None and bound >= exact
        smaller = [b for b in LATENCY_BOUNDS_MS if b < bound]
        assert not smaller or exact > smaller[-1]  # the tightest bound the buckets allow
    assert percentile_bound({}, 0.5) is None


async def test_the_servers_loop_rolls_up_every_tenant_with_recent_records(database: Database) -> None:
    """What a first view used to do (seconds over a million records) done on the clock instead."""
    for n in range(10):
        await _record(database, NOW - timedelta(hours=n + 3), n)
    other = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=20)))
    await other.write(NewDecisionRecord(id="old", tenant="quiet", kind="routing", path="local", action="CLARIFY"))
    rollups = DecisionRollups(database)
    done = await rollups.ensure_active(NOW, recent=timedelta(hours=4))
    assert done == {"t": hour_of(NOW - MARGIN)}  # the tenant with nothing recent is left alone
    assert await rollups.until("t") == hour_of(NOW - MARGIN) and await rollups.until("quiet") is None
    async with database.connect() as conn:
        rolled = (await conn.execute(select(func.sum(decision_rollups.c.decisions)))).scalar_one()
    assert rolled == 10
    assert await rollups.ensure_active(NOW, recent=timedelta(hours=4)) == done  # nothing twice
    async with database.connect() as conn:
        assert (await conn.execute(select(func.sum(decision_rollups.c.decisions)))).scalar_one() == 10
