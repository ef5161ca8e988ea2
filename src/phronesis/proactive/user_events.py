"""What users and their tenant did about proactive messages, for the timeline.

A reply (its text, up to 280 characters, and how it was read), an opt-out or opt-in, a mute
or unmute, a pause or resume of the whole tenant (``user_id`` None). Without them a timeline
shows every send but not why they stopped (the user opted out by replying "stop"). Each event is
written in the transaction of what it records, so the story and the state cannot disagree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import insert, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.ids import new_id
from phronesis.proactive.models import OptOut, TimelineEvent, UserEventKind
from phronesis.storage.database import Database
from phronesis.storage.tables import proactive_user_events

__all__ = ["REPLY_TEXT_CHARS", "UserEventRepository", "opted"]

REPLY_TEXT_CHARS = 280
"""How much of a reply the timeline keeps: enough to see why it was read as it was."""

c = proactive_user_events.c


def opted(kind: str, switched: OptOut, how: str = "") -> str:
    """One line for an opt-out, mute or opt-in event: ``opted out of weather by reply``, ``muted bill
    until 2026-12-06 09:00 UTC``, ``opted in to everything``."""
    named = [*switched.categories, *switched.topics]
    what = ", ".join(named) if named and not switched.all else "everything"
    if kind == "mute":
        until = f" until {switched.until:%Y-%m-%d %H:%M} UTC" if switched.until is not None else ""
        return f"muted {what}{until}{how}"
    return f"opted {'in to' if kind == 'opt_in' else 'out of'} {what}{how}"


class UserEventRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def add(
        self,
        conn: AsyncConnection,
        tenant: str,
        user_id: str | None,
        kind: UserEventKind,
        summary: str,
        at: datetime,
        details: dict[str, Any] | None = None,
    ) -> None:
        """Record one event in the caller's transaction; ``user_id`` None: the whole tenant."""
        values = {
            "tenant": tenant,
            "id": new_id(),
            "user_id": user_id,
            "at": at,
            "kind": kind,
            "summary": summary[:600],
            "details": details or {},
        }
        await conn.execute(insert(proactive_user_events).values(values))

    async def for_user(self, tenant: str, user_id: str, *, since: datetime, limit: int) -> list[TimelineEvent]:
        """The user's events and their tenant's since ``since``, newest first."""
        query = (
            select(proactive_user_events)
            .where(c.tenant == tenant, or_(c.user_id == user_id, c.user_id.is_(None)), c.at >= since)
            .order_by(c.at.desc(), c.id)
            .limit(limit)
        )
        async with self._db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            TimelineEvent(at=row.at, kind=row.kind, summary=row.summary, details=dict(row.details or {}))
            for row in rows
        ]
