"""Signals waiting for a user's next cycle, deduplicated by key, read for many users at once."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import bindparam, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.clock import Clock
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.ids import new_id
from phronesis.pages import Page
from phronesis.proactive.fates import Fate
from phronesis.proactive.models import Signal, SignalIn
from phronesis.proactive.templates import identity, moment_passed, past_moment
from phronesis.storage.database import Database
from phronesis.storage.filters import member_of, where_given
from phronesis.storage.inserts import insert_or_ignore
from phronesis.storage.paging import fetch_page
from phronesis.storage.tables import proactive_signals, proactive_users

__all__ = ["SignalRepository", "SignalsAdded", "dedup_key", "release_undelivered"]

c = proactive_signals.c
DEFAULT_TTL = timedelta(days=1)
# A source polled again sends a signal it sent before: while that one is pending, it takes what
# the source says now. A calendar event first seen 20 h ahead has urgency 4; polled again 30 min
# before it starts, 8: dropping the duplicate would mean the reminder never goes out.
_REFRESH = (
    update(proactive_signals)
    .where(
        c.tenant == bindparam("b_tenant"),
        c.user_id == bindparam("b_user_id"),
        c.dedup_key == bindparam("b_dedup_key"),
        c.consumed_at.is_(None),
    )
    .values(
        urgency_hint=bindparam("new_urgency"),
        data=bindparam("new_data"),
        context_only=bindparam("new_context_only"),
        expires_at=bindparam("new_expires_at"),
    )
)


_SETTLE = (
    update(proactive_signals)
    .where(c.tenant == bindparam("b_tenant"), c.id == bindparam("b_id"))
    .values(outcome=bindparam("b_outcome"), outcome_reason=bindparam("b_reason"), outcome_ref=bindparam("b_ref"))
)


async def release_undelivered(
    conn: AsyncConnection, tenant: str, send_ids: Sequence[str], dialect: str, now: datetime
) -> int:
    """The signals of sends that failed for good wait again for a cycle while their moment is
    ahead: a message never delivered told nothing, so its signals do not stay "sent". One whose
    moment has passed ends expired, never told late. How many ended so."""
    if not send_ids:
        return 0
    query = select(proactive_signals).where(
        c.tenant == tenant, member_of(c.outcome_ref, send_ids, dialect), c.outcome.in_(("sent", "folded"))
    )
    signals = [_signal(row) for row in await conn.execute(query)]
    again = [s.id for s in signals if not moment_passed(s, now)]
    late = [s.id for s in signals if moment_passed(s, now)]
    if again:
        await conn.execute(
            update(proactive_signals)
            .where(c.tenant == tenant, member_of(c.id, again, dialect))
            .values(consumed_at=None, cycle_key=None, outcome=None, outcome_reason=None, outcome_ref=None)
        )
    if late:
        reason = "its message was never delivered, and its moment passed before another could be"
        await conn.execute(
            update(proactive_signals)
            .where(c.tenant == tenant, member_of(c.id, late, dialect))
            .values(outcome="expired", outcome_reason=reason)
        )
    return len(late)


async def moment_passed_for(conn: AsyncConnection, tenant: str, send_id: str, now: datetime) -> datetime | None:
    """The latest moment of a send's event signals when every signal it tells is an event already
    past (a message "Dentist in 10 minutes" retried after the appointment); None otherwise."""
    query = select(proactive_signals).where(
        c.tenant == tenant, c.outcome_ref == send_id, c.outcome.in_(("sent", "folded"))
    )
    moments = [past_moment(_signal(row), now) for row in await conn.execute(query)]
    if not moments or any(m is None for m in moments):
        return None
    return max(m for m in moments if m is not None)


class SignalsAdded(NamedTuple):
    stored: list[Signal]
    """The new signals, as stored."""
    duplicates: int
    """Signals whose key this user already had (or that the same batch named again): not stored."""
    updated: int
    """Of the duplicates, the ones that matched a pending signal, which took their urgency, data
    and expiry (a source polled again); the rest were refused (a used key, within its window)."""


def dedup_key(signal: SignalIn) -> str:
    """The caller's key, else the type and a hash of the data (ORIGINS §4: type + id|title|date)."""
    if signal.dedup_key:
        return signal.dedup_key
    data = json.dumps(signal.data, sort_keys=True, default=str)
    return f"{signal.type}:{hashlib.sha256(data.encode()).hexdigest()[:32]}"


_FIELDS = tuple(Signal.model_fields)


def _signal(row: Any) -> Signal:
    """A stored signal, built without validating it again: it was validated when it came in, and
    the columns' types give it back typed. Validating every row (through ``row._mapping``) was
    19 % of a tick's time in a py-spy profile of ``bench_proactive``."""
    return Signal.model_construct(**{name: getattr(row, name) for name in _FIELDS})


class SignalRepository:
    def __init__(self, database: Database, clock: Clock, *, dedup_window: timedelta) -> None:
        self._db = database
        self._clock = clock
        self._dedup_window = dedup_window

    async def add(self, tenant: str, user_id: str, signals: Sequence[SignalIn]) -> SignalsAdded:
        """Store new signals (one transaction); a known dedup key is not stored again (a pending
        signal with it takes the new values)."""
        now = self._clock.now()
        rows = []
        for position, signal in enumerate(signals):
            expires = signal.expires_at or now + DEFAULT_TTL
            if expires <= now:
                raise InvalidInputError(f"signals.{position}.expires_at", "is already in the past")
            rows.append(
                {
                    "tenant": tenant,
                    "id": new_id(),
                    "user_id": user_id,
                    "type": signal.type,
                    "urgency_hint": signal.urgency_hint,
                    "data": signal.data,
                    "context_only": signal.context_only,
                    "dedup_key": dedup_key(signal),
                    "created_at": now,
                    "expires_at": expires,
                    "consumed_at": None,
                    "cycle_key": None,
                }
            )
        # the same key twice in one batch: the later one is what the source says now (it is stored,
        # the earlier counted as a duplicate; the answer showed the first while the row held the last)
        latest = {r["dedup_key"]: r for r in rows}
        in_batch = len(rows) - len(latest)
        rows = list(latest.values())
        positions = {r["id"]: i for i, r in enumerate(rows)}
        async with self._db.transaction() as conn:
            known = (
                await conn.execute(
                    select(proactive_users.c.id).where(
                        proactive_users.c.tenant == tenant, proactive_users.c.id == user_id
                    )
                )
            ).first()
            if known is None:
                raise NotFoundError("user", user_id)
            # a used or expired signal holds its key ``dedup_window`` long; then the key is free again
            await conn.execute(
                delete(proactive_signals).where(
                    c.tenant == tenant,
                    c.user_id == user_id,
                    c.dedup_key.in_([r["dedup_key"] for r in rows]),
                    c.created_at < now - self._dedup_window,
                    or_(c.consumed_at.is_not(None), c.expires_at <= now),
                )
            )
            await conn.execute(insert_or_ignore(self._db.dialect, proactive_signals), rows)
            stored = sorted(
                (
                    await conn.execute(
                        select(proactive_signals).where(c.tenant == tenant, c.id.in_([r["id"] for r in rows]))
                    )
                ).all(),
                key=lambda r: positions[r.id],
            )
            fresh = {r.id for r in stored}
            repolled = [r for r in rows if r["id"] not in fresh]
            updated = 0
            if repolled:
                pending = select(func.count()).where(
                    c.tenant == tenant,
                    c.user_id == user_id,
                    c.dedup_key.in_([r["dedup_key"] for r in repolled]),
                    c.consumed_at.is_(None),
                )
                updated = int((await conn.execute(pending)).scalar_one())
                await conn.execute(
                    _REFRESH,
                    [
                        {
                            "b_tenant": tenant,
                            "b_user_id": user_id,
                            "b_dedup_key": r["dedup_key"],
                            "new_urgency": r["urgency_hint"],
                            "new_data": r["data"],
                            "new_context_only": r["context_only"],
                            "new_expires_at": r["expires_at"],
                        }
                        for r in repolled
                    ],
                )
        return SignalsAdded([_signal(r) for r in stored], len(repolled) + in_batch, updated)

    async def due_users(
        self, conn: AsyncConnection, tenant: str, now: datetime, *, after: str, limit: int
    ) -> list[str]:
        """Users with a live, unconsumed, concrete signal, in id order after ``after`` (keyset pages).

        The signals index leads with (tenant, user_id): the scan runs in user order and stops
        after ``limit`` users, with or without planner statistics.
        """
        query = (
            select(c.user_id)
            .where(
                c.tenant == tenant,
                c.user_id > after,
                c.consumed_at.is_(None),
                c.expires_at > now,
                c.context_only.is_(False),
                or_(c.retry_at.is_(None), c.retry_at <= now),
            )
            .distinct()
            .order_by(c.user_id)
            .limit(limit)
        )
        return list((await conn.execute(query)).scalars())

    async def tenants_with_pending(self, conn: AsyncConnection, now: datetime) -> list[str]:
        """Tenants that have users at all (cheap: the users' key); ``due_users`` finds who has signals."""
        query = select(proactive_users.c.tenant).distinct()
        return list((await conn.execute(query)).scalars())

    async def pending_for(
        self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], now: datetime
    ) -> dict[str, list[Signal]]:
        query = select(proactive_signals).where(
            c.tenant == tenant,
            member_of(c.user_id, user_ids, self._db.dialect),
            c.consumed_at.is_(None),
            c.expires_at > now,
            or_(c.retry_at.is_(None), c.retry_at <= now),  # one waiting for the user's wake is not due
        )
        out: dict[str, list[Signal]] = defaultdict(list)
        for row in await conn.execute(query):
            out[row.user_id].append(_signal(row))
        return out

    async def consume(
        self, conn: AsyncConnection, tenant: str, ids: Sequence[str], now: datetime, cycle_key: str
    ) -> set[str]:
        """Mark signals used by cycles that got past the pre-filter (they will not be judged again);
        the ids this call used (one still unused: another worker's cycle did not take it first)."""
        if not ids:
            return set()
        result = await conn.execute(
            update(proactive_signals)
            .where(c.tenant == tenant, member_of(c.id, ids, self._db.dialect), c.consumed_at.is_(None))
            .values(consumed_at=now, cycle_key=cycle_key)
            .returning(c.id)
        )
        return set(result.scalars())

    async def types_of(self, conn: AsyncConnection, tenant: str, user_id: str) -> set[str]:
        """The signal types the user has had (a topic a reply or a control names must match one of
        them, or be a word ``topics`` knows)."""
        query = select(c.type).where(c.tenant == tenant, c.user_id == user_id).distinct()
        return set((await conn.execute(query)).scalars())

    async def subjects_of(
        self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], since: datetime
    ) -> dict[str, set[str]]:
        """The titles of the signals each send since ``since`` spoke for, by send id (the signals'
        ``outcome_ref``), in one query for a batch of users."""
        query = select(c.outcome_ref, c.type, c.data).where(
            c.tenant == tenant,
            member_of(c.user_id, user_ids, self._db.dialect),
            c.outcome.in_(("sent", "folded")),
            c.consumed_at >= since,
        )
        out: dict[str, set[str]] = defaultdict(set)
        for send_id, type_, data in await conn.execute(query):
            out[send_id].add(identity(type_, data))
        return out

    async def settle(self, conn: AsyncConnection, tenant: str, fates: Sequence[Fate]) -> None:
        """Write what each used signal became (``proactive.fates``), in one statement for a batch."""
        if fates:
            await conn.execute(
                _SETTLE,
                [
                    {"b_tenant": tenant, "b_id": f.signal_id, "b_outcome": f.outcome,
                     "b_reason": f.reason[:512], "b_ref": f.ref}
                    for f in fates
                ],
            )  # fmt: skip

    async def note_waits(self, conn: AsyncConnection, tenant: str, reasons: Mapping[str, str]) -> None:
        """Why each user's pending signals wait (``fates.waiting``): one statement per reason, and
        only rows whose reason changes are written."""
        by_reason: dict[str, list[str]] = defaultdict(list)
        for user_id, reason in reasons.items():
            by_reason[reason].append(user_id)
        for reason, user_ids in by_reason.items():
            await conn.execute(
                update(proactive_signals)
                .where(
                    c.tenant == tenant,
                    member_of(c.user_id, user_ids, self._db.dialect),
                    c.consumed_at.is_(None),
                    c.retry_at.is_(None),
                    c.outcome_reason.is_distinct_from(reason),
                )
                .values(outcome_reason=reason)
            )

    async def hold(self, conn: AsyncConnection, tenant: str, held: Mapping[str, tuple[datetime, str]]) -> None:
        """Signals that wait, unused, until a time (the user's wake), with why."""
        if held:
            await conn.execute(
                update(proactive_signals)
                .where(c.tenant == bindparam("b_tenant"), c.id == bindparam("b_id"), c.consumed_at.is_(None))
                .values(retry_at=bindparam("b_at"), outcome_reason=bindparam("b_reason")),
                [{"b_tenant": tenant, "b_id": k, "b_at": at, "b_reason": why[:512]} for k, (at, why) in held.items()],
            )

    async def list(self, tenant: str, user_id: str, *, pending: bool | None, limit: int, offset: int) -> Page[Signal]:
        query = where_given(select(proactive_signals).where(c.tenant == tenant), ((c.user_id, user_id),))
        if pending is True:
            query = query.where(c.consumed_at.is_(None), c.expires_at > self._clock.now())
        elif pending is False:
            query = query.where(c.consumed_at.is_not(None))
        query = query.order_by(c.created_at.desc(), c.id)
        async with self._db.connect() as conn:
            return await fetch_page(conn, query, _signal, limit=limit, offset=offset)

    async def count_pending(self, tenant: str) -> int:
        async with self._db.connect() as conn:
            query = select(func.count()).where(
                c.tenant == tenant, c.consumed_at.is_(None), c.expires_at > self._clock.now()
            )
            return int((await conn.execute(query)).scalar_one())
