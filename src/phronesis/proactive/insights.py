"""Seed 004 §6, deferred insights: borderline candidates kept 24 h for the user's next reply."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.pages import Page
from phronesis.proactive.models import DeferredInsight
from phronesis.storage.database import Database
from phronesis.storage.filters import member_of
from phronesis.storage.paging import fetch_page
from phronesis.storage.tables import proactive_deferred_insights

__all__ = ["InsightRepository"]

c = proactive_deferred_insights.c


def _insight(row: Any) -> DeferredInsight:
    values = dict(row._mapping)
    for key in ("tenant", "cycle_key", "used_at"):
        values.pop(key)
    return DeferredInsight.model_validate(values)


class InsightRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def save(self, conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
        if rows:
            await conn.execute(insert(proactive_deferred_insights), list(rows))

    def _fresh(self, tenant: str, user_ids: Sequence[str], now: datetime) -> Any:
        return select(proactive_deferred_insights).where(
            c.tenant == tenant,
            member_of(c.user_id, user_ids, self._db.dialect),
            c.used.is_(False),
            c.expires_at >= now,
        )

    async def fresh(
        self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], now: datetime, limit: int
    ) -> dict[str, list[DeferredInsight]]:
        """Each user's best ``limit`` fresh, unused insights, in one query for a batch of users."""
        query = self._fresh(tenant, user_ids, now).order_by(c.user_id, c.relevance_score.desc(), c.created_at)
        out: dict[str, list[DeferredInsight]] = defaultdict(list)
        for row in await conn.execute(query):
            if len(out[row.user_id]) < limit:
                out[row.user_id].append(_insight(row))
        return out

    async def take(
        self, conn: AsyncConnection, tenant: str, user_id: str, now: datetime, limit: int
    ) -> list[DeferredInsight]:
        """The best fresh, unused insights, marked used in the same transaction (seed 004 §6)."""
        taken = (await self.fresh(conn, tenant, [user_id], now, limit)).get(user_id, [])
        if taken:
            await conn.execute(
                update(proactive_deferred_insights)
                .where(c.tenant == tenant, c.id.in_([i.id for i in taken]), c.used.is_(False))
                .values(used=True, used_at=now)
            )
        return [i.model_copy(update={"used": True}) for i in taken]

    async def list(
        self, tenant: str, user_id: str, *, fresh_only: bool, now: datetime, limit: int, offset: int
    ) -> Page[DeferredInsight]:
        query = (
            self._fresh(tenant, [user_id], now)
            if fresh_only
            else select(proactive_deferred_insights).where(c.tenant == tenant, c.user_id == user_id)
        )
        query = query.order_by(c.created_at.desc(), c.id)
        async with self._db.connect() as conn:
            return await fetch_page(conn, query, _insight, limit=limit, offset=offset)
