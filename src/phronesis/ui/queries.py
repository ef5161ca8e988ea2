"""What the dashboard's pages show, aggregated in SQL over one tenant's decision records.

Every figure is a ``GROUP BY`` on the ``(tenant, kind, created_at)`` index over the chosen
window; nothing walks the records in Python (issue 25: pages answer in milliseconds over a
million records). Percentiles are the database's (``percentile_disc`` on PostgreSQL; on SQLite,
which has none, the row at that rank by ``ORDER BY … OFFSET``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.audit.models import DecisionRecord
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records, feedback

__all__ = ["DecisionFilter", "DashboardQueries", "KindSummary", "Overview"]

c = decision_records.c

KINDS = ("executive", "learning", "routing", "admission", "proactive", "reevaluation")
CATEGORICAL_ACTIONS = ("routing", "admission", "proactive")
"""Kinds whose ``action`` is one of a few words (a route, ADD/NOT/…, sent/deferred/silent); an
executive action is free text and is broken down by path only."""


@dataclass(frozen=True, slots=True)
class KindSummary:
    kind: str
    decisions: int
    llm_calls: int
    """Requests sent to the LLM (records older than the count, migration 0009, add nothing)."""
    prompt_tokens: int
    completion_tokens: int
    without_llm: int
    """Decisions made with no LLM call: each one an always-LLM agent would have paid for."""
    p50_ms: float | None
    p99_ms: float | None


@dataclass(slots=True)
class Overview:
    since: datetime
    days: list[str]
    per_day: dict[str, list[int]] = field(default_factory=dict)
    """kind → decisions per day, aligned with ``days``."""
    by_path: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    by_action: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    proactive_reasons: list[tuple[str, int]] = field(default_factory=list)
    kinds: list[KindSummary] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class DecisionFilter:
    kind: str | None = None
    path: str | None = None
    action: str | None = None
    subject: str | None = None
    text: str | None = None
    since: datetime | None = None
    until: datetime | None = None


def _day(dialect: str, column: Any) -> Any:
    if dialect == "postgresql":
        return func.to_char(func.timezone("UTC", column), "YYYY-MM-DD")
    return func.strftime("%Y-%m-%d", column)


class DashboardQueries:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def overview(self, tenant: str, now: datetime, days: int) -> Overview:
        since = (now - timedelta(days=days - 1)).replace(hour=0, minute=0, second=0, microsecond=0)
        labels = [(since + timedelta(days=i)).strftime("%Y-%m-%d") for i in range(days)]
        out = Overview(since=since, days=labels)
        window = and_(c.tenant == tenant, c.created_at >= since)
        day = _day(self._db.dialect, c.created_at).label("day")
        async with self._db.connect() as conn:
            index = {label: i for i, label in enumerate(labels)}
            rows = await conn.execute(select(c.kind, day, func.count()).where(window).group_by(c.kind, day))
            for kind, label, count in rows:
                series = out.per_day.setdefault(kind, [0] * len(labels))
                if label in index:
                    series[index[label]] = count
            rows = await conn.execute(
                select(c.kind, c.path, func.count()).where(window).group_by(c.kind, c.path).order_by(c.kind, c.path)
            )
            for kind, path, count in rows:
                out.by_path.setdefault(kind, []).append((path, count))
            rows = await conn.execute(
                select(c.kind, c.action, func.count())
                .where(window, c.kind.in_(CATEGORICAL_ACTIONS))
                .group_by(c.kind, c.action)
                .order_by(c.kind, c.action)
            )
            for kind, action, count in rows:
                out.by_action.setdefault(kind, []).append((action or "none", count))
            rows = await conn.execute(
                select(c.reason, func.count())
                .where(window, c.kind == "proactive", c.action != "sent", c.reason.is_not(None))
                .group_by(c.reason)
                .order_by(func.count().desc())
            )
            out.proactive_reasons = [(reason, count) for reason, count in rows]
            summed = await conn.execute(
                select(
                    c.kind,
                    func.count(),
                    func.coalesce(func.sum(c.llm_calls), 0),
                    func.coalesce(func.sum(c.prompt_tokens), 0),
                    func.coalesce(func.sum(c.completion_tokens), 0),
                    func.count().filter(c.llm_calls == 0),
                )
                .where(window)
                .group_by(c.kind)
                .order_by(c.kind)
            )
            totals = list(summed)
            latency = await self._percentiles(conn, window, [row[0] for row in totals])
        for kind, count, calls, prompt, completion, without in totals:
            p50, p99 = latency.get(kind, (None, None))
            out.kinds.append(KindSummary(kind, count, int(calls), int(prompt), int(completion), without, p50, p99))
        return out

    async def _percentiles(
        self, conn: AsyncConnection, window: Any, kinds: list[str]
    ) -> dict[str, tuple[float | None, float | None]]:
        timed = and_(window, c.latency_ms.is_not(None))
        if self._db.dialect == "postgresql":
            ranked = await conn.execute(
                select(
                    c.kind,
                    func.percentile_disc(0.5).within_group(c.latency_ms),
                    func.percentile_disc(0.99).within_group(c.latency_ms),
                )
                .where(timed)
                .group_by(c.kind)
            )
            return {kind: (p50, p99) for kind, p50, p99 in ranked}
        out: dict[str, tuple[float | None, float | None]] = {}
        rows = await conn.execute(select(c.kind, func.count()).where(timed).group_by(c.kind))
        counts: dict[str, int] = {kind: n for kind, n in rows}
        for kind in kinds:
            n = counts.get(kind, 0)
            if not n:
                continue
            at_rank = select(c.latency_ms).where(timed, c.kind == kind).order_by(c.latency_ms).limit(1)
            p50 = (await conn.execute(at_rank.offset(int(0.5 * (n - 1))))).scalar()
            p99 = (await conn.execute(at_rank.offset(int(0.99 * (n - 1))))).scalar()
            out[kind] = (p50, p99)
        return out

    async def decisions(
        self, tenant: str, where: DecisionFilter, *, limit: int, before: tuple[datetime, str] | None = None
    ) -> list[DecisionRecord]:
        """Newest first, ``limit`` at a time; ``before`` is the last row of the previous page
        (keyset paging: page 1,000 costs what page 1 does)."""
        query = select(decision_records).where(c.tenant == tenant)
        for column, value in ((c.kind, where.kind), (c.path, where.path), (c.action, where.action)):
            if value:
                query = query.where(column == value)
        if where.subject:
            query = query.where(c.subject_id == where.subject)
        if where.since:
            query = query.where(c.created_at >= where.since)
        if where.until:
            query = query.where(c.created_at < where.until)
        if where.text:
            pattern = f"%{where.text.lower()}%"
            query = query.where(
                or_(
                    func.lower(c.action).like(pattern),
                    func.lower(c.reason).like(pattern),
                    func.lower(c.subject_id).like(pattern),
                )
            )
        if before is not None:
            at, record_id = before
            query = query.where(or_(c.created_at < at, and_(c.created_at == at, c.id > record_id)))
        query = query.order_by(c.created_at.desc(), c.id).limit(limit)
        async with self._db.connect() as conn:
            return [DecisionRecord.model_validate(dict(row._mapping)) for row in await conn.execute(query)]

    async def feedback_for(self, tenant: str, record_id: str) -> list[dict[str, Any]]:
        f = feedback.c
        query = (
            select(f.score, f.scale, f.source, f.effect, f.comment, f.heuristic_id, f.created_at)
            .where(f.tenant == tenant, f.response_id == record_id)
            .order_by(f.created_at)
        )
        async with self._db.connect() as conn:
            return [dict(row._mapping) for row in await conn.execute(query)]
