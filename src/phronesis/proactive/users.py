"""Proactive users: the profile the pre-filter and trust ramp read, and the counters a reply moves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.clock import Clock
from phronesis.exceptions import NotFoundError
from phronesis.pages import Page
from phronesis.proactive.models import UserIn, UserProfile
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.topics import active_topics, opted_out_of, topic_covers_type
from phronesis.proactive.trust import trust_for
from phronesis.storage.database import Database
from phronesis.storage.filters import member_of
from phronesis.storage.inserts import upsert
from phronesis.storage.paging import fetch_page
from phronesis.storage.tables import proactive_users

__all__ = ["UserRepository", "opted_out_by"]

c = proactive_users.c


def opted_out_by(controls: Any, signal_types: Sequence[str], category: str, now: datetime) -> bool:
    """``topics.opted_out_of`` with a user's controls as ``UserRepository.lock`` reads them."""
    return opted_out_of(
        signal_types,
        category,
        everything=bool(controls.opted_out),
        categories=controls.opted_out_categories or (),
        stopped=active_topics(controls.opted_out_topics, now),
        allowed=controls.opted_in_topics or (),
    )


class UserRepository:
    def __init__(self, database: Database, settings: ProactiveSettings, clock: Clock) -> None:
        self._db = database
        self._settings = settings
        self._clock = clock

    def profile(self, row: Any) -> UserProfile:
        values = dict(row._mapping)
        values.pop("tenant")
        values.pop("updated_at", None)
        values["opted_out_categories"] = values.get("opted_out_categories") or []
        values["opted_out_topics"] = values.get("opted_out_topics") or {}
        values["opted_in_topics"] = values.get("opted_in_topics") or []
        now = self._clock.now()
        # a mute that has ended is not shown as standing (it kept showing on the profile)
        if values.get("muted_until") is not None and values["muted_until"] <= now:
            values["muted_until"] = None
        values["opted_out_topics"] = {
            topic: until for topic, until in values["opted_out_topics"].items() if until is None or _after(until, now)
        }
        values["trust_level"] = trust_for(
            self._settings,
            now=now,
            created_at=values["created_at"],
            interactions=values["interaction_count"],
            last_active_at=values["last_active_at"],
        ).level
        return UserProfile.model_validate(values)

    async def put(self, tenant: str, user_id: str, body: UserIn) -> tuple[UserProfile, bool]:
        """Create or fully replace a user's profile; True when it was created."""
        now = self._clock.now()
        s = self._settings
        values = {
            "tenant": tenant,
            "id": user_id,
            "timezone": body.timezone,
            "wake_time": body.wake_time or s.default_wake_time,
            "sleep_time": body.sleep_time or s.default_sleep_time,
            "created_at": body.created_at or now,
            "interaction_count": body.interaction_count or 0,
            "last_active_at": body.last_active_at,
            "channel": body.channel or s.channel,
            "address": body.address,
            "calendar_url": body.calendar_url,
            "ignored_signal_types": body.ignored_signal_types,
            "patterns": body.patterns,
            "learned_ignored_types": [],
            "updated_at": now,
        }
        async with self._db.transaction() as conn:
            existed = (
                await conn.execute(
                    select(c.created_at, c.learned_ignored_types, c.interaction_count, c.last_active_at).where(
                        c.tenant == tenant, c.id == user_id
                    )
                )
            ).first()
            if existed is not None:
                if body.created_at is None:
                    values["created_at"] = existed.created_at  # an update keeps the relationship's age
                values["learned_ignored_types"] = existed.learned_ignored_types  # learned, not the caller's
                # counted and kept current by replies: an update that does not name them keeps them
                if body.interaction_count is None:
                    values["interaction_count"] = existed.interaction_count
                if body.last_active_at is None:
                    values["last_active_at"] = existed.last_active_at
            await conn.execute(
                upsert(
                    self._db.dialect,
                    proactive_users,
                    ["tenant", "id"],
                    [k for k in values if k not in ("tenant", "id")],
                ),
                values,
            )
            row = (await conn.execute(select(proactive_users).where(c.tenant == tenant, c.id == user_id))).one()
        return self.profile(row), existed is None

    async def get(self, tenant: str, user_id: str, *, connection: AsyncConnection | None = None) -> UserProfile:
        query = select(proactive_users).where(c.tenant == tenant, c.id == user_id)
        if connection is not None:
            row = (await connection.execute(query)).first()
        else:
            async with self._db.connect() as conn:
                row = (await conn.execute(query)).first()
        if row is None:
            raise NotFoundError("user", user_id)
        return self.profile(row)

    async def rows(self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str]) -> list[Any]:
        query = select(proactive_users).where(c.tenant == tenant, member_of(c.id, user_ids, self._db.dialect))
        return list((await conn.execute(query)).all())

    async def page(self, tenant: str, *, limit: int, offset: int) -> Page[UserProfile]:
        query = select(proactive_users).where(c.tenant == tenant).order_by(c.id)
        async with self._db.connect() as conn:
            return await fetch_page(conn, query, self.profile, limit=limit, offset=offset)

    async def with_calendars(self, tenant: str | None) -> list[tuple[str, str, str, str]]:
        """(tenant, user, calendar URL, time zone) of every user who has a calendar feed."""
        query = select(c.tenant, c.id, c.calendar_url, c.timezone).where(c.calendar_url.is_not(None))
        if tenant is not None:
            query = query.where(c.tenant == tenant)
        async with self._db.connect() as conn:
            return [(r[0], r[1], r[2], r[3]) for r in await conn.execute(query.order_by(c.tenant, c.id))]

    async def delete(self, tenant: str, user_id: str) -> None:
        async with self._db.transaction() as conn:
            if (await conn.execute(delete(proactive_users).where(c.tenant == tenant, c.id == user_id))).rowcount == 0:
                raise NotFoundError("user", user_id)

    async def lock(self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str]) -> dict[str, Any]:
        """Serialise users' sends: row locks on PostgreSQL, taken in id order so two workers with
        overlapping batches cannot deadlock (SQLite already has one writer). Each existing user's
        controls as they are under the lock (what they asked since they were screened)."""
        query = (
            select(c.id, c.opted_out, c.opted_out_categories, c.muted_until, c.opted_out_topics, c.opted_in_topics)
            .where(c.tenant == tenant, member_of(c.id, user_ids, self._db.dialect))
            .order_by(c.id)
        )
        if self._db.dialect == "postgresql":
            query = query.with_for_update()
        return {row.id: row for row in await conn.execute(query)}

    async def set_learned_ignored(self, conn: AsyncConnection, tenant: str, user_id: str, types: list[str]) -> None:
        await conn.execute(
            update(proactive_users).where(c.tenant == tenant, c.id == user_id).values(learned_ignored_types=types)
        )

    async def record_message(self, conn: AsyncConnection, tenant: str, user_id: str, at: datetime) -> bool:
        """A message from the user: one more interaction (counted in SQL), active now."""
        result = await conn.execute(
            update(proactive_users)
            .where(c.tenant == tenant, c.id == user_id)
            .values(
                interaction_count=c.interaction_count + 1,
                last_active_at=at,
                last_user_message_at=at,
                updated_at=at,
            )
        )
        return result.rowcount > 0

    async def current(self, conn: AsyncConnection, tenant: str, user_id: str) -> UserProfile:
        """The profile as the caller's transaction sees it (after its own writes)."""
        row = (await conn.execute(select(proactive_users).where(c.tenant == tenant, c.id == user_id))).one()
        return self.profile(row)

    async def update_controls(self, conn: AsyncConnection, tenant: str, user_id: str, **values: Any) -> bool:
        allowed = {"opted_out", "opted_out_categories", "muted_until", "opted_out_topics", "opted_in_topics"}
        assert values and set(values) <= allowed, values
        result = await conn.execute(
            update(proactive_users)
            .where(c.tenant == tenant, c.id == user_id)
            .values(**values, updated_at=self._clock.now())
        )
        return result.rowcount > 0

    async def opt_out(
        self,
        conn: AsyncConnection,
        tenant: str,
        user_id: str,
        categories: Sequence[str],
        topics: Mapping[str, datetime | None] | None = None,
    ) -> bool:
        """The user opts out of everything (no ``categories``, no ``topics``) or of these too, merged
        with what they had under their row's lock (a reply and an API call at once lose neither).
        ``topics``: each with its mute's end (None: until opted back in). False: no such user."""
        if not categories and not topics:  # everything, the exceptions asked for before too
            return await self.update_controls(conn, tenant, user_id, opted_out=True, opted_in_topics=[])
        row = (await self.lock(conn, tenant, [user_id])).get(user_id)
        if row is None:
            return False
        values: dict[str, Any] = {}
        if topics and row.opted_in_topics:
            values["opted_in_topics"] = [t for t in row.opted_in_topics if t not in topics]
        if categories:
            values["opted_out_categories"] = sorted({*(row.opted_out_categories or ()), *categories})
        if topics:
            stopped = dict(row.opted_out_topics or {})
            for topic, until in topics.items():
                kept = stopped.get(topic, "")
                if kept is None or (until is not None and kept and kept > until.isoformat()):
                    continue  # an opt-out for good, or a longer mute, stands
                stopped[topic] = until.isoformat() if until is not None else None
            values["opted_out_topics"] = dict(sorted(stopped.items()))
        return await self.update_controls(conn, tenant, user_id, **values)

    async def opt_in(
        self,
        conn: AsyncConnection,
        tenant: str,
        user_id: str,
        categories: Sequence[str],
        every: Sequence[str],
        topics: Sequence[str] = (),
    ) -> bool:
        """Undo an opt-out: of everything (no ``categories``, no ``topics``: category and topic
        opt-outs and a mute too), or of these. Categories named come back (opted out of everything
        (``every`` category): those only). A topic named undoes the stopped topics of its kind and,
        while everything or some category is off, passes as an exception (``opted_in_topics``)."""
        if not categories and not topics:
            return await self.update_controls(
                conn,
                tenant,
                user_id,
                opted_out=False,
                opted_out_categories=[],
                opted_out_topics={},
                opted_in_topics=[],
                muted_until=None,
            )
        row = (await self.lock(conn, tenant, [user_id])).get(user_id)
        if row is None:
            return False
        off = set(every) if row.opted_out else set(row.opted_out_categories or ())
        stopped = {
            kept: until
            for kept, until in (row.opted_out_topics or {}).items()
            if not any(t == kept or topic_covers_type(t, kept) for t in topics)
        }
        if categories:  # categories named back on: of everything, those only
            return await self.update_controls(
                conn,
                tenant,
                user_id,
                opted_out=False,
                opted_out_categories=sorted(off - set(categories)),
                opted_out_topics=stopped,
            )
        # topics named back on: the rest stays as it was, these pass (an exception when their
        # category or everything is off: "weather" does not turn every nudge back on)
        allowed = sorted({*(row.opted_in_topics or ()), *topics}) if off else list(row.opted_in_topics or ())
        return await self.update_controls(conn, tenant, user_id, opted_out_topics=stopped, opted_in_topics=allowed)


def _after(until: Any, now: datetime) -> bool:
    """Whether a topic's mute (stored as an ISO time in JSON, or read back as a time) ends after ``now``."""
    end = datetime.fromisoformat(until) if isinstance(until, str) else until
    return not isinstance(end, datetime) or (end if end.tzinfo else end.replace(tzinfo=UTC)) > now
