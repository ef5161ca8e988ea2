"""Seed 003's ``MemoryDecision`` rows: one per admission, stored or not, queryable and exported."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, tuple_, union_all

from phronesis.admission.models import AdmissionDecision, MemoryDecision
from phronesis.exceptions import NotFoundError
from phronesis.pages import Page
from phronesis.storage.database import Database
from phronesis.storage.filters import where_given
from phronesis.storage.paging import fetch_page
from phronesis.storage.tables import admission_memory_decisions
from phronesis.storage.write_buffer import WriteBuffer

__all__ = ["MemoryDecisionRepository"]

c = admission_memory_decisions.c
_INSERT = insert(admission_memory_decisions)


def _decision(row: Any) -> MemoryDecision:
    values = dict(row._mapping)
    values.pop("tenant")
    values.pop("prior", None)  # what undo restores: not part of the record a caller reads
    return MemoryDecision.model_validate(values)


class MemoryDecisionRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    def add(self, writes: WriteBuffer, values: dict[str, Any]) -> None:
        """Queue the decision's row: it commits with the admission's effects."""
        writes.insert(_INSERT, values)

    async def get(self, tenant: str, decision_id: str) -> MemoryDecision:
        query = select(admission_memory_decisions).where(c.tenant == tenant, c.id == decision_id)
        async with self._db.connect() as conn:
            row = (await conn.execute(query)).one_or_none()
        if row is None:
            raise NotFoundError("memory decision", decision_id)
        return _decision(row)

    async def query(
        self,
        tenant: str,
        *,
        run_id: str | None = None,
        target_run_id: str | None = None,
        decision: AdmissionDecision | None = None,
        agent_id: str | None = None,
        user_id: str | None = None,
        batch_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> Page[MemoryDecision]:
        query = where_given(
            select(admission_memory_decisions).where(c.tenant == tenant),
            (
                (c.run_id, run_id),
                (c.target_run_id, target_run_id),
                (c.decision, decision),
                (c.agent_id, agent_id),
                (c.user_id, user_id),
                (c.batch_id, batch_id),
            ),
            created_at=c.created_at,
            since=since,
            until=until,
        )
        query = query.order_by(c.created_at.desc(), c.id)
        async with self._db.connect() as conn:
            return await fetch_page(conn, query, _decision, limit=limit, offset=offset)

    async def iterate(self, tenant: str, *, batch_size: int = 5000) -> AsyncIterator[list[MemoryDecision]]:
        """Every decision of ``tenant`` in (created_at, id) order, a page at a time (for export)."""
        after: tuple[Any, str] | None = None
        while True:
            query = select(admission_memory_decisions).where(c.tenant == tenant)
            if after is not None:
                query = query.where(tuple_(c.created_at, c.id) > after)
            async with self._db.connect() as conn:
                rows = (await conn.execute(query.order_by(c.created_at, c.id).limit(batch_size))).all()
            if not rows:
                return
            yield [_decision(row) for row in rows]
            after = (rows[-1].created_at, rows[-1].id)

    async def fallbacks(self) -> dict[str, int]:
        """How many decisions, across tenants, took a fallback or were made from a repaired answer,
        by reason (``stage`` fail_safe: the LLM judge's answer was unusable, its reason before
        ``->``; rule ``repaired_output``: a cut-off answer closed). Read from the database, so every
        worker reports the same counts; the (stage, rule) index keeps it to those rows."""
        statement = union_all(
            select(c.rule, func.count()).where(c.stage == "fail_safe").group_by(c.rule),
            select(c.rule, func.count()).where(c.stage == "judge", c.rule == "repaired_output").group_by(c.rule),
        )
        counts: dict[str, int] = {}
        async with self._db.connect() as conn:
            for rule, n in await conn.execute(statement):
                reason = (rule or "unknown").split("->", 1)[0]
                counts[reason] = counts.get(reason, 0) + int(n)
        return counts
