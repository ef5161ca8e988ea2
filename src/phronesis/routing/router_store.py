"""Fitted local routers, one per (tenant, name), stored with their weights in the database.

A fit replaces the stored router in one transaction and bumps its version; every process
notices the new version on its next routing call (one small query) and reloads.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select

from phronesis.clock import Clock
from phronesis.routing.local_router import LocalRouter
from phronesis.storage.database import Database
from phronesis.storage.tables import routing_routers

__all__ = ["RouterStore"]


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
        c = routing_routers.c
        async with self._db.connect() as conn:
            version = await conn.scalar(select(c.version).where(c.tenant == tenant, c.name == name))
            if version is None:
                self._loaded.pop((tenant, name), None)
                return None
            cached = self._loaded.get((tenant, name))
            if cached is not None and cached[0] == version:
                return cached[1]
            row = (await conn.execute(select(c.details, c.weights).where(c.tenant == tenant, c.name == name))).one()
        router = LocalRouter.restore(row.details, row.weights)
        self._loaded[(tenant, name)] = (int(version), router)
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
