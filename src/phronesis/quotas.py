"""What one tenant may store (``quotas.*``): one tenant cannot fill the database for every other.

Without a limit a tenant's rows of every kind are accepted for as long as a client sends them.
Each kind a client creates through the API is counted per tenant
against ``quotas.<kind>`` before the write; past it the write is refused (403, naming the kind and
the setting), nothing stored. Counting is a ``COUNT`` on the tenant's rows, read at most every
``quotas.refresh_s`` per process (a count per request would cost more than many writes do); the
process adds what it lets through meanwhile, so its own writes are counted at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Literal, get_args

from sqlalchemy import Table, func, select

from phronesis.exceptions import QuotaExceededError
from phronesis.settings import QuotaSettings
from phronesis.storage.database import Database
from phronesis.storage.tables import (
    admission_runs,
    heuristics,
    proactive_signals,
    proactive_users,
    routing_documents,
    routing_sessions,
    routing_tools,
)

__all__ = ["QuotaKind", "TenantQuotas"]

QuotaKind = Literal["heuristics", "documents", "runs", "sessions", "users", "signals", "tools"]

_TABLES: dict[str, Table] = {
    "heuristics": heuristics,
    "documents": routing_documents,
    "runs": admission_runs,
    "sessions": routing_sessions,
    "users": proactive_users,
    "signals": proactive_signals,
    "tools": routing_tools,
}
assert set(_TABLES) == set(get_args(QuotaKind))


class TenantQuotas:
    def __init__(
        self, database: Database, settings: QuotaSettings, *, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._db = database
        self._settings = settings
        self._monotonic = monotonic
        self._counted: dict[tuple[str, str], tuple[int, float]] = {}
        self._lock = asyncio.Lock()

    def limit(self, kind: QuotaKind) -> int | None:
        limit: int | None = getattr(self._settings, kind)
        return limit

    async def reserve(self, tenant: str, kind: QuotaKind, adding: int) -> None:
        """Count ``adding`` new rows of ``kind`` for ``tenant``, or refuse them all: a
        ``QuotaExceededError`` when the tenant would store more than its quota."""
        limit = self.limit(kind)
        if limit is None or adding <= 0:
            return
        async with self._lock:  # two requests of one process cannot both take the last rows
            used = await self._used(tenant, kind)
            if used + adding > limit:
                raise QuotaExceededError(kind, limit, used, adding)
            self._counted[(tenant, kind)] = (used + adding, self._counted[(tenant, kind)][1])

    async def reserve_new(self, tenant: str, kind: QuotaKind, *keys: str | None) -> None:
        """``reserve`` a row for each of ``keys`` that does not exist (a create-or-replace: ``PUT``,
        an import with ``upsert``): a replacement adds no row, and is allowed at the quota. A key
        of None is a new row (an id to be chosen)."""
        if self.limit(kind) is None:
            return
        table = _TABLES[kind]
        column = table.c.name if kind == "tools" else table.c.id
        named = {key for key in keys if key is not None}
        async with self._db.connect() as conn:
            query = select(column).where(table.c.tenant == tenant, column.in_(named))
            existing = set((await conn.execute(query)).scalars()) if named else set()
        await self.reserve(tenant, kind, sum(1 for key in keys if key is None) + len(named - existing))

    async def _used(self, tenant: str, kind: str) -> int:
        now = self._monotonic()
        counted = self._counted.get((tenant, kind))
        if counted is not None and now - counted[1] < self._settings.refresh_s:
            return counted[0]
        table = _TABLES[kind]
        async with self._db.connect() as conn:
            used = int((await conn.execute(select(func.count()).where(table.c.tenant == tenant))).scalar_one())
        self._counted[(tenant, kind)] = (used, now)
        return used
