"""Proactive counters per tenant and UTC day: cheap aggregates of what the
loop did, counted in the database so every API worker, Celery worker and the CLI add to one
number and ``/metrics`` says the same on each.

Names: ``cycle:<reason>`` (sent, explored, and every block reason: the pre-filter's and the
cycle's), ``llm_calls``, ``prompt_tokens``, ``completion_tokens``, ``delivery:<sent|failed|retrying>``
and ``feedback:<outcome>``. A tick adds a chunk's counts in one statement per name, whether or
not blocked cycles are recorded one by one (``record_blocked``, ~100 records per user a night).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime

from sqlalchemy import Delete, delete, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.storage.database import Database
from phronesis.storage.inserts import increment
from phronesis.storage.tables import proactive_counters

__all__ = ["CounterRepository"]

c = proactive_counters.c


class CounterRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def bump(self, conn: AsyncConnection, tenant: str, at: datetime, counts: Mapping[str, int]) -> None:
        """Add ``counts`` to the tenant's counters of ``at``'s UTC day (atomic in the database)."""
        rows = [
            {"tenant": tenant, "day": _utc_day(at), "name": name[:48], "value": value}
            for name, value in sorted(counts.items())
            if value
        ]
        if rows:
            await conn.execute(
                increment(self._db.dialect, proactive_counters, ["tenant", "day", "name"], "value"), rows
            )

    async def totals(self) -> dict[str, int]:
        """Every counter summed over tenants and days (for ``/metrics``)."""
        query = select(c.name, func.sum(c.value)).group_by(c.name)
        async with self._db.connect() as conn:
            return {name: int(value) for name, value in await conn.execute(query)}

    async def daily(self, tenant: str, since: date) -> dict[str, dict[str, int]]:
        """day → name → value for the tenant, from ``since`` on."""
        query = select(c.day, c.name, c.value).where(c.tenant == tenant, c.day >= since.isoformat())
        out: dict[str, dict[str, int]] = {}
        async with self._db.connect() as conn:
            for day, name, value in await conn.execute(query.order_by(c.day, c.name)):
                out.setdefault(day, {})[name] = int(value)
        return out

    @staticmethod
    def purge_statement(before: datetime) -> Delete:
        """The counters of days before ``before``'s UTC day (for retention)."""
        return delete(proactive_counters).where(c.day < _utc_day(before))


def _utc_day(at: datetime) -> str:
    return at.astimezone(UTC).date().isoformat()
