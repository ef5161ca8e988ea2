"""Hourly rollups of decision records: what the dashboard's overview reads.

Grouping a million records on every page view takes seconds (measured: 0.86 s on SQLite for
100,000 records over 30 days). Here every closed hour is grouped once, in SQL
(``INSERT … SELECT … GROUP BY``), into ``decision_rollups`` (decisions, LLM calls, tokens,
decisions made without the LLM, per kind, path, outcome and reason: routing's escalation
reason, proactive's block reason) and
``decision_latency_rollups`` (decisions per latency bucket); a page reads those rows plus the
few hours not rolled up yet, grouped live the same way. Percentiles come from the buckets:
the bucket's upper bound is reported (``≤ 15 ms``), never a number the data cannot support.

An hour is rolled up once it ended ``MARGIN`` ago: a proactive send's outcome can still change
for an hour after it was recorded (the outbox gives up after 60 minutes). Records written later
with an older ``created_at`` (an import) are not in the rollups. Rollups outlive the records'
retention purge: the overview keeps its history.

Many processes: the tenant's mark row is locked (``FOR UPDATE``) while an hour range is rolled
up, so two workers never insert the same hour twice; on SQLite the single writer does the same.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import BigInteger, Integer, and_, case, cast, func, insert, literal, literal_column, select, update
from sqlalchemy.sql import Select

from phronesis.storage.database import Database
from phronesis.storage.inserts import insert_or_ignore
from phronesis.storage.tables import decision_latency_rollups, decision_records, decision_rollup_marks, decision_rollups

__all__ = [
    "CATEGORICAL",
    "LATENCY_BOUNDS_MS",
    "MARGIN",
    "MAX_WINDOW_DAYS",
    "DecisionRollups",
    "hour_of",
    "percentile_bound",
]

c = decision_records.c
CATEGORICAL = ("routing", "admission", "proactive")
"""Kinds whose ``action`` is one of a few words (a route, ADD/NOT/…, sent/deferred/silent)."""
WITH_REASONS = ("routing", "proactive")
"""Kinds whose ``reason`` is one of a few words: an escalation's reason, a block reason."""
MARGIN = timedelta(hours=2)
MAX_WINDOW_DAYS = 90
LATENCY_BOUNDS_MS = (
    1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700,
    1_000, 1_500, 2_000, 3_000, 5_000, 7_000, 10_000, 20_000, 30_000, 60_000,
)  # fmt: skip
"""Upper bounds of the latency buckets; the last bucket holds everything slower."""
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def hour_of(at: datetime) -> int:
    """Hours since the epoch (UTC) of the hour ``at`` falls in."""
    return int((at - EPOCH).total_seconds() // 3600)


def at_hour(hour: int) -> datetime:
    return EPOCH + timedelta(hours=hour)


def percentile_bound(counts: dict[int, int], q: float) -> float | None:
    """The upper bound (ms) of the bucket holding the ``q`` quantile (None: no data; inf: slower
    than the last bound)."""
    total = sum(counts.values())
    if not total:
        return None
    rank, seen = q * (total - 1), 0
    for bucket in sorted(counts):
        seen += counts[bucket]
        if seen > rank:
            return float(LATENCY_BOUNDS_MS[bucket]) if bucket < len(LATENCY_BOUNDS_MS) else float("inf")
    return float("inf")


def _by(*names: str) -> list[Any]:
    """GROUP BY the select's own output columns by name: an expression with bound parameters
    (the outcome's ``CASE``) repeated in GROUP BY is, to PostgreSQL, another expression. The
    computed ones are named ``g_…``: a plain ``reason`` would group by the table's column."""
    return [literal_column(name) for name in names]


class DecisionRollups:
    def __init__(self, database: Database) -> None:
        self._db = database

    def _hour(self) -> Any:
        if self._db.dialect == "postgresql":
            return cast(func.floor(func.extract("epoch", c.created_at) / 3600), BigInteger)
        return cast(func.strftime("%s", c.created_at), Integer) // 3600

    def grouped(self, tenant: str, start: datetime, end: datetime | None = None) -> Select[Any]:
        """The records in [start, end) grouped as ``decision_rollups`` holds them."""
        outcome = case((c.kind.in_(CATEGORICAL), func.coalesce(func.substr(c.action, 1, 64), "")), else_=literal(""))
        reason = case((c.kind.in_(WITH_REASONS), func.coalesce(func.substr(c.reason, 1, 64), "")), else_=literal(""))
        where = [c.tenant == tenant, c.created_at >= start] + ([c.created_at < end] if end is not None else [])
        return (
            select(
                literal(tenant).label("g_tenant"),
                self._hour().label("g_hour"),
                c.kind,
                c.path,
                outcome.label("g_outcome"),
                reason.label("g_reason"),
                func.count().label("decisions"),
                func.coalesce(func.sum(c.llm_calls), 0).label("llm_calls"),
                func.coalesce(func.sum(c.prompt_tokens), 0).label("prompt_tokens"),
                func.coalesce(func.sum(c.completion_tokens), 0).label("completion_tokens"),
                func.count().filter(c.llm_calls == 0).label("without_llm"),
            )
            .where(*where)
            .group_by(*_by("g_hour", "kind", "path", "g_outcome", "g_reason"))
        )

    def grouped_latency(self, tenant: str, start: datetime, end: datetime | None = None) -> Select[Any]:
        bucket = case(
            *((c.latency_ms <= bound, i) for i, bound in enumerate(LATENCY_BOUNDS_MS)), else_=len(LATENCY_BOUNDS_MS)
        ).label("g_bucket")
        where = [c.tenant == tenant, c.created_at >= start, c.latency_ms.is_not(None)]
        if end is not None:
            where.append(c.created_at < end)
        return (
            select(
                literal(tenant).label("g_tenant"),
                self._hour().label("g_hour"),
                c.kind,
                bucket,
                func.count().label("decisions"),
            )
            .where(*where)
            .group_by(*_by("g_hour", "kind", "g_bucket"))
        )

    async def until(self, tenant: str) -> int | None:
        async with self._db.connect() as conn:
            query = select(decision_rollup_marks.c.until_hour).where(decision_rollup_marks.c.tenant == tenant)
            value = (await conn.execute(query)).scalar()
        return None if value is None else int(value)

    async def ensure(self, tenant: str, now: datetime) -> int:
        """Roll up every hour that ended ``MARGIN`` before ``now``; the hour rolled up to."""
        target = hour_of(now - MARGIN)
        done = await self.until(tenant)
        if done is not None and done >= target:
            return done
        marks = decision_rollup_marks
        async with self._db.transaction() as conn:
            start = hour_of(now - timedelta(days=MAX_WINDOW_DAYS))
            await conn.execute(insert_or_ignore(self._db.dialect, marks), {"tenant": tenant, "until_hour": start})
            locked = select(marks.c.until_hour).where(marks.c.tenant == tenant).with_for_update()
            until = int((await conn.execute(locked)).scalar_one())
            if until >= target:
                return until  # another process rolled it up while this one waited for the lock
            rolled, latency = decision_rollups, decision_latency_rollups
            await conn.execute(
                insert(rolled).from_select(
                    [col.name for col in rolled.c], self.grouped(tenant, at_hour(until), at_hour(target))
                )
            )
            await conn.execute(
                insert(latency).from_select(
                    [col.name for col in latency.c], self.grouped_latency(tenant, at_hour(until), at_hour(target))
                )
            )
            await conn.execute(update(marks).where(marks.c.tenant == tenant).values(until_hour=target))
        return target

    async def ensure_active(self, now: datetime, *, recent: timedelta) -> dict[str, int]:
        """``ensure`` for every tenant with records in the last ``recent``: what the server's
        rollup loop runs, so a dashboard's first view reads rollups instead of making them (at a
        million records that was seconds). The tenants come from the created-at index over the
        recent records only; each tenant's mark row lock keeps the workers from doubling an hour."""
        query = select(c.tenant).where(c.created_at >= now - recent).distinct()
        async with self._db.connect() as conn:
            tenants = sorted(str(t) for t in (await conn.execute(query)).scalars())
        return {tenant: await self.ensure(tenant, now) for tenant in tenants}

    async def totals(self) -> list[tuple[str, str, int, int, int]]:
        """Every tenant's rolled-up decisions by kind and path, with their LLM calls and those decided
        without the LLM (``/metrics``): closed hours only, and they outlive the records' purge, so
        the figures only grow."""
        r = decision_rollups.c
        query = select(r.kind, r.path, func.sum(r.decisions), func.sum(r.llm_calls), func.sum(r.without_llm)).group_by(
            r.kind, r.path
        )
        async with self._db.connect() as conn:
            rows = await conn.execute(query)
            return [(kind, path, int(n), int(calls), int(without)) for kind, path, n, calls, without in rows]

    def combined(self, tenant: str, since: datetime, until: int) -> Any:
        """Rolled-up hours from ``since`` to ``until``, and the live records after: one relation."""
        r = decision_rollups.c
        rolled = select(*(col for col in decision_rollups.c)).where(
            r.tenant == tenant, r.hour >= hour_of(since), r.hour < until
        )
        live = self.grouped(tenant, max(since, at_hour(until)))
        return rolled.union_all(live).subquery()

    def combined_latency(self, tenant: str, since: datetime, until: int) -> Any:
        r = decision_latency_rollups.c
        rolled = select(*(col for col in decision_latency_rollups.c)).where(
            and_(r.tenant == tenant, r.hour >= hour_of(since), r.hour < until)
        )
        return rolled.union_all(self.grouped_latency(tenant, max(since, at_hour(until)))).subquery()
