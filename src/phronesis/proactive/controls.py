"""The controls a product team and its users hold over proactive messages.

A tenant's pause is the kill switch: while it is on, no cycle of that tenant sends anything
(the tick still sweeps feedback, signals wait). A user's opt-out, per-category opt-out and mute
live on the user's row (``UserRepository.update_controls``); this module keeps the tenant's side.
Both are read by the pre-filter for a whole chunk and again under the user's lock when a cycle
commits, so a pause or an opt-out that lands while a cycle is deciding still stops its send.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.schema import Schema
from phronesis.storage.database import Database
from phronesis.storage.inserts import upsert
from phronesis.storage.tables import proactive_tenants

__all__ = ["PauseIn", "PauseState", "TenantControls"]

c = proactive_tenants.c


class PauseIn(Schema):
    model_config = ConfigDict(extra="forbid")

    paused: bool = Field(strict=True)
    """true or false: a kill switch is not switched by "yes"."""
    reason: str | None = Field(default=None, max_length=500)
    """Why (shown to whoever looks later: "incident 42, bad template")."""


class PauseState(Schema):
    paused: bool
    """True: no cycle of the tenant sends anything (signals wait, feedback is still swept); false: messages flow."""
    reason: str | None = None
    """Why, as given when the pause was last switched. None: none given."""
    updated_at: datetime | None = None
    """When the pause was last switched on or off (UTC). None: never."""


class TenantControls:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def paused(self, conn: AsyncConnection, tenant: str) -> bool:
        query = select(c.paused).where(c.tenant == tenant)
        return bool((await conn.execute(query)).scalar())

    async def paused_among(self, conn: AsyncConnection, tenants: Sequence[str]) -> set[str]:
        query = select(c.tenant).where(c.tenant.in_(list(tenants)), c.paused.is_(True))
        return set((await conn.execute(query)).scalars())

    async def get(self, tenant: str) -> PauseState:
        async with self._db.connect() as conn:
            row = (await conn.execute(select(proactive_tenants).where(c.tenant == tenant))).first()
        if row is None:
            return PauseState(paused=False)
        return PauseState(paused=row.paused, reason=row.reason, updated_at=row.updated_at)

    async def set(self, conn: AsyncConnection, tenant: str, body: PauseIn, now: datetime) -> PauseState:
        """Switch the pause in the caller's transaction."""
        values = {"tenant": tenant, "paused": body.paused, "reason": body.reason, "updated_at": now}
        await conn.execute(
            upsert(self._db.dialect, proactive_tenants, ["tenant"], ["paused", "reason", "updated_at"]), values
        )
        return PauseState(paused=body.paused, reason=body.reason, updated_at=now)
