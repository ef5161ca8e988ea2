"""Decision records: write one in the caller's transaction, read and aggregate them later."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.audit.models import DecisionKind, DecisionRecord, NewDecisionRecord, OutcomeSummary, PathCount
from phronesis.clock import Clock, SystemClock
from phronesis.exceptions import NotFoundError
from phronesis.logs import call_notes, current_request_id
from phronesis.pages import Page
from phronesis.storage.database import Database
from phronesis.storage.filters import where_given
from phronesis.storage.paging import fetch_page
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.tables import decision_records
from phronesis.storage.write_buffer import WriteBuffer
from phronesis.telemetry import Tracing

__all__ = ["DecisionRecordRepository", "RatedRecord"]


@dataclass(frozen=True, slots=True)
class RatedRecord:
    """A decision a user rated: what it was given, what it did, and the rating."""

    id: str
    inputs: dict[str, Any]
    action: str | None
    correct: bool
    feedback: dict[str, Any]
    attributes: dict[str, Any]


# Built once, executed with parameters: a fresh ``insert().values()`` per decision cost more
# Python than the insert itself on the executive's hot path.
_INSERT = insert(decision_records)


def _row(record: NewDecisionRecord, now: datetime, tracing: Tracing | None = None) -> dict[str, Any]:
    """The stored row of a new record: its fields, the time it was written and, when an HTTP
    request caused it, that request's id (``X-Request-ID``), so a log line and a record meet; what
    the adapter serving the call noted of it (``logs.call_notes``: GLADyS's trace id); with tracing on,
    the decision's span and its trace id (``telemetry``)."""
    row = record.model_dump() | {"created_at": now}
    rid = current_request_id()
    if rid is not None and "request_id" not in row["attributes"]:
        row["attributes"] = {**row["attributes"], "request_id": rid}
    notes = call_notes.get()
    if notes:
        row["attributes"] = {**notes, **row["attributes"]}
    if tracing is not None:
        row["attributes"] = tracing.decision(record, row["attributes"])
    return row


RecordSink = AsyncConnection | PointTransaction | WriteBuffer | None
"""Where a decision record is written: the transaction its decision's effects are written in."""


class DecisionRecordRepository:
    def __init__(self, database: Database, *, clock: Clock | None = None, tracing: Tracing | None = None) -> None:
        self._db = database
        self._clock = clock or SystemClock()
        self._tracing = tracing

    async def write(self, *records: NewDecisionRecord, into: RecordSink = None) -> None:
        """The one way a decision record is written: in the transaction of the decision's effects
        (ARCHITECTURE.md: the record commits with them, or neither does). ``into`` is that
        transaction as the decision point holds it: a connection, a point transaction (its next
        statement or its commit carries the record), a write buffer (the group commit's), or None
        for a transaction of the record's own (a record with no effects)."""
        if not records:
            return
        now = self._clock.now()
        rows = [_row(record, now, self._tracing) for record in records]
        if isinstance(into, WriteBuffer):
            for row in rows:
                into.insert(_INSERT, row)
        elif isinstance(into, PointTransaction):
            await into.insert([(_INSERT, rows)])
        else:
            async with self._db.joined(into) as conn:
                await conn.execute(_INSERT, rows)  # built once: see _INSERT

    async def get(self, tenant: str, record_id: str) -> DecisionRecord:
        async with self._db.connect() as conn:
            row = (
                await conn.execute(
                    select(decision_records).where(
                        decision_records.c.tenant == tenant, decision_records.c.id == record_id
                    )
                )
            ).one_or_none()
        if row is None:
            raise NotFoundError("decision", record_id)
        return DecisionRecord.model_validate(dict(row._mapping))

    def _filtered(
        self,
        query: Any,
        tenant: str,
        kind: DecisionKind | None,
        strategy: str | None,
        path: str | None,
        since: datetime | None,
        until: datetime | None,
        subject_id: str | None = None,
    ) -> Any:
        c = decision_records.c
        return where_given(
            query.where(c.tenant == tenant),
            ((c.kind, kind), (c.strategy, strategy), (c.path, path), (c.subject_id, subject_id)),
            created_at=c.created_at,
            since=since,
            until=until,
        )

    async def query(
        self,
        tenant: str,
        *,
        kind: DecisionKind | None = None,
        strategy: str | None = None,
        path: str | None = None,
        subject_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 100,
        offset: int = 0,
        exclude_strategy: str | None = None,
    ) -> list[DecisionRecord]:
        """Newest first; ``exclude_strategy`` leaves out one strategy's records (before the limit applies)."""
        query = self._listing(tenant, kind, strategy, path, subject_id, since, until, exclude_strategy)
        async with self._db.connect() as conn:
            return [_record(row) for row in await conn.execute(query.limit(limit).offset(offset))]

    async def page(
        self,
        tenant: str,
        *,
        kind: DecisionKind | None = None,
        strategy: str | None = None,
        path: str | None = None,
        subject_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> Page[DecisionRecord]:
        """One page of the records, newest first, and how many match the filters."""
        query = self._listing(tenant, kind, strategy, path, subject_id, since, until, None)
        async with self._db.connect() as conn:
            return await fetch_page(conn, query, _record, limit=limit, offset=offset)

    def _listing(
        self,
        tenant: str,
        kind: DecisionKind | None,
        strategy: str | None,
        path: str | None,
        subject_id: str | None,
        since: datetime | None,
        until: datetime | None,
        exclude_strategy: str | None,
    ) -> Select[Any]:
        query: Select[Any] = self._filtered(
            select(decision_records), tenant, kind, strategy, path, since, until, subject_id
        )
        if exclude_strategy is not None:
            c = decision_records.c
            query = query.where(or_(c.strategy.is_(None), c.strategy != exclude_strategy))
        return query.order_by(decision_records.c.created_at.desc(), decision_records.c.id)

    async def count_by_path(
        self,
        tenant: str,
        *,
        kind: DecisionKind | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[PathCount]:
        c = decision_records.c
        query = (
            self._filtered(
                select(c.strategy, c.path, func.count().label("count")), tenant, kind, None, None, since, until
            )
            .group_by(c.strategy, c.path)
            .order_by(c.strategy, c.path)
        )
        async with self._db.connect() as conn:
            return [PathCount(strategy=r.strategy, path=r.path, count=r.count) for r in await conn.execute(query)]

    async def summarize(
        self, tenant: str, *, kind: DecisionKind | None = None, since: datetime | None = None
    ) -> list[OutcomeSummary]:
        """Counts, mean confidence and tokens per (strategy, path, outcome), aggregated in SQL."""
        c = decision_records.c
        query = (
            self._filtered(
                select(
                    c.strategy,
                    c.path,
                    c.outcome,
                    func.count().label("count"),
                    func.avg(c.confidence).label("mean_confidence"),
                    func.coalesce(func.sum(c.prompt_tokens), 0).label("prompt_tokens"),
                    func.coalesce(func.sum(c.completion_tokens), 0).label("completion_tokens"),
                    func.coalesce(func.sum(c.llm_calls), 0).label("llm_calls"),
                    func.count().filter(c.llm_calls.is_(None)).label("uncounted"),
                ),
                tenant,
                kind,
                None,
                None,
                since,
                None,
            )
            .group_by(c.strategy, c.path, c.outcome)
            .order_by(c.strategy, c.path, c.outcome)
        )
        async with self._db.connect() as conn:
            return [
                OutcomeSummary(
                    strategy=r.strategy,
                    path=r.path,
                    outcome=r.outcome,
                    count=r.count,
                    mean_confidence=None if r.mean_confidence is None else float(r.mean_confidence),
                    prompt_tokens=int(r.prompt_tokens),
                    completion_tokens=int(r.completion_tokens),
                    llm_calls=int(r.llm_calls),
                    uncounted=int(r.uncounted),
                )
                for r in await conn.execute(query)
            ]

    async def set_outcome(
        self, tenant: str, record_id: str, outcome: str, *, connection: AsyncConnection | None = None
    ) -> None:
        statement = (
            update(decision_records)
            .where(decision_records.c.tenant == tenant, decision_records.c.id == record_id)
            .values(outcome=outcome, outcome_at=self._clock.now())
        )
        async with self._db.joined(connection) as conn:
            result = await conn.execute(statement)
        if result.rowcount == 0:
            raise NotFoundError("decision", record_id)

    async def merge_attributes(
        self,
        tenant: str,
        record_id: str,
        patch: dict[str, Any],
        *,
        connection: AsyncConnection | None = None,
        outcome: tuple[str, str] | None = None,
    ) -> DecisionRecord:
        """Add keys to a record's attributes (e.g. convergence found after the response was sent);
        ``outcome`` (action, reason) also corrects what the decision turned out to be, e.g. a
        proactive message recorded as sent whose delivery then failed."""
        c = decision_records.c
        where = (c.tenant == tenant, c.id == record_id)
        async with self._db.joined(connection) as conn:
            row = (await conn.execute(select(decision_records).where(*where).with_for_update())).one_or_none()
            if row is None:
                raise NotFoundError("decision", record_id)
            values: dict[str, Any] = {"attributes": {**row.attributes, **patch}}
            if outcome is not None:
                values["action"], values["reason"] = outcome
            await conn.execute(update(decision_records).where(*where).values(**values))
        return DecisionRecord.model_validate({**dict(row._mapping), **values})

    async def merge_attributes_many(
        self,
        tenant: str,
        patches: dict[str, tuple[dict[str, Any], tuple[str, str] | None]],
        *,
        connection: AsyncConnection,
    ) -> None:
        """``merge_attributes`` for many records in two statements (a batch of proactive deliveries):
        record id → (patch, outcome). Records that do not exist are skipped."""
        if not patches:
            return
        c = decision_records.c
        ids = sorted(patches)
        query = select(c.id, c.attributes, c.action, c.reason).where(c.tenant == tenant, c.id.in_(ids)).order_by(c.id)
        rows = list(await connection.execute(query.with_for_update()))
        values = []
        for row in rows:
            patch, outcome = patches[row.id]
            action, reason = outcome or (row.action, row.reason)
            values.append(
                {"b_id": row.id, "b_attributes": {**row.attributes, **patch}, "b_action": action, "b_reason": reason}
            )
        if values:
            statement = (
                update(decision_records)
                .where(c.tenant == tenant, c.id == bindparam("b_id"))
                .values(
                    attributes=bindparam("b_attributes", type_=c.attributes.type),
                    action=bindparam("b_action"),
                    reason=bindparam("b_reason"),
                )
            )
            await connection.execute(statement, values)

    async def rate(self, tenant: str, record_id: str, key: str, feedback: dict[str, Any], *, correct: bool) -> None:
        """A user's rating of a decision, on its record in one transaction: ``outcome`` becomes
        ``correct`` or ``incorrect`` and ``attributes[key]`` says what it should have been. A
        later rating replaces an earlier one (the last click wins). Routing and admission
        feedback (``route_feedback``, ``admission_feedback``) are both kept this way."""
        async with self._db.transaction() as conn:
            await self.merge_attributes(tenant, record_id, {key: feedback}, connection=conn)
            await self.set_outcome(tenant, record_id, "correct" if correct else "incorrect", connection=conn)

    async def rated(self, tenant: str, kind: DecisionKind, key: str, *, limit: int = 100_000) -> list[RatedRecord]:
        """The records of ``kind`` a user rated (``rate``), oldest first: what feedback teaches."""
        c = decision_records.c
        query = (
            select(c.id, c.inputs, c.action, c.outcome, c.attributes)
            .where(c.tenant == tenant, c.kind == kind, c.outcome.in_(("correct", "incorrect")))
            .order_by(c.created_at, c.id)
            .limit(limit)
        )
        async with self._db.connect() as conn:
            return [
                RatedRecord(
                    row.id,
                    dict(row.inputs or {}),
                    row.action,
                    row.outcome == "correct",
                    dict((row.attributes or {}).get(key) or {}),
                    dict(row.attributes or {}),
                )
                for row in await conn.execute(query)
            ]

    async def purge(self, retention: timedelta) -> int:
        """Delete records older than ``retention`` (time-based, whatever the table size)."""
        cutoff = self._clock.now() - retention
        async with self._db.transaction() as conn:
            result = await conn.execute(delete(decision_records).where(decision_records.c.created_at < cutoff))
        return int(result.rowcount)


def _record(row: Any) -> DecisionRecord:
    return DecisionRecord.model_validate(dict(row._mapping))
