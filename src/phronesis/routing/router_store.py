"""Fitted local routers, one per (tenant, name), stored with their weights in the database.

A fit replaces the stored router in one transaction and bumps its version; every process
notices the new version on its next routing call (one small query) and reloads.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, delete, select

from phronesis.clock import Clock
from phronesis.routing.local_router import LocalRouter
from phronesis.storage.database import Database
from phronesis.storage.tables import routing_routers

__all__ = ["RouterStore"]


_r = routing_routers.c
_VERSION = select(_r.version).where(_r.tenant == bindparam("w_tenant"), _r.name == bindparam("w_name"))
_STORED = select(_r.version, _r.details, _r.weights).where(
    _r.tenant == bindparam("w_tenant"), _r.name == bindparam("w_name")
)


class RouterStore:
    def __init__(self, database: Database, clock: Clock) -> None:
        self._db = database
        self._clock = clock
        self._loaded: dict[tuple[str, str], tuple[int, LocalRouter]] = {}

    async def save(self, tenant: str, name: str, router: LocalRouter) -> int:
        c = routing_routers.c
        async with self._db.transaction() as conn:
            current = await conn.scalar(select(c.version).where(c.tenant == tenant, c.name == name))
            version = int(current or 0) + 1
            await conn.execute(delete(routing_routers).where(c.tenant == tenant, c.name == name))
            await conn.execute(
                routing_routers.insert().values(
                    tenant=tenant,
                    name=name,
                    version=version,
                    details=router.metadata(),
                    weights=router.weights(),
                    created_at=self._clock.now(),
                )
            )
        self._loaded[(tenant, name)] = (version, router)
        return version

    async def load(self, tenant: str, name: str) -> LocalRouter | None:
        """The tenant's router as stored now: its version read at every turn (another process may
        have fitted one since), its weights only when that version is not the one held."""
        key = {"w_tenant": tenant, "w_name": name}
        # point reads: on a SQLite file one hop each to its reader lane
        async with self._db.reading() as conn:
            found = await self._db.read(_VERSION, key, connection=conn)
            if not found:
                self._loaded.pop((tenant, name), None)
                return None
            version = int(found[0][0])
            cached = self._loaded.get((tenant, name))
            if cached is not None and cached[0] == version:
                return cached[1]
            stored = await self._db.read(_STORED, key, connection=conn)
        if not stored:  # deleted between the two reads (a fit replaces its row in one transaction)
            self._loaded.pop((tenant, name), None)
            return None
        ((stored_version, details, weights),) = stored
        router = LocalRouter.restore(details, weights)
        self._loaded[(tenant, name)] = (int(stored_version), router)
        return router

    async def describe(self, tenant: str) -> list[dict[str, Any]]:
        c = routing_routers.c
        async with self._db.connect() as conn:
            rows = await conn.execute(
                select(c.name, c.version, c.details, c.created_at).where(c.tenant == tenant).order_by(c.name)
            )
            return [
                {
                    "name": r.name,
                    "version": r.version,
                    "labels": len(r.details["labels"]),
                    "calibration": r.details.get("calibration", {}),
                    "embedding_model": r.details.get("embedding_model"),
                    "created_at": r.created_at.isoformat(),
                }
                for r in rows
            ]
