"""Proactive sends and their feedback (seed 004 §5's ``ProactiveFeedback``, one row per send).

A send is claimed before it is delivered: the claim is a row with status ``sending``
under the unique key (tenant, user, cycle), inserted in the same transaction that
re-counts the user's sends today against the cap, with the user's row locked. So a
retried task or a second worker running the same cycle finds the claim and stops, and
two different cycles racing for the last slot of the cap cannot both pass.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, TextClause, and_, bindparam, delete, insert, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.pages import Page
from phronesis.proactive.models import FeedbackOutcome, ProactiveFeedback
from phronesis.storage.database import Database
from phronesis.storage.filters import member_of, where_given
from phronesis.storage.inserts import insert_or_ignore
from phronesis.storage.paging import fetch_page
from phronesis.storage.tables import decision_records, proactive_cycle_claims, proactive_sends

__all__ = ["SendRepository"]

c = proactive_sends.c
SENDING = text("proactive_sends.delivery_status = 'sending'")
"""The outbox's partial index's own predicate, as a literal: a bound parameter in its place may
keep a prepared statement's generic plan from using the index."""
PENDING = text("proactive_sends.outcome = 'pending'")
"""Sends waiting for their feedback: the predicate of the partial index that finds them (a few a
user) without walking a tenant's whole history, as a literal for the same reason."""
COUNTED = ("sending", "sent")
"""A failed delivery does not use up the cap; a claimed or delivered one does."""


def feedback_model(row: Any) -> ProactiveFeedback:
    values = dict(row._mapping)
    for key in ("tenant", "cycle_key", "next_attempt_at"):
        values.pop(key, None)
    return ProactiveFeedback.model_validate(values)


class SendRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def recent_for(
        self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], since: datetime
    ) -> dict[str, list[datetime]]:
        """Counted sends since ``since`` per user, in one query for the whole chunk."""
        query = select(c.user_id, c.sent_at).where(
            c.tenant == tenant,
            member_of(c.user_id, user_ids, self._db.dialect),
            c.sent_at >= since,
            c.delivery_status.in_(COUNTED),
        )
        out: dict[str, list[datetime]] = defaultdict(list)
        for user_id, sent_at in await conn.execute(query):
            out[user_id].append(sent_at)
        return out

    async def recent_messages(
        self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], limit: int, *, since: datetime
    ) -> dict[str, list[tuple[str, str]]]:
        """Each user's latest ``limit`` messages sent since ``since`` (send id, text), newest first
        (for repeats), in one query for a batch of users."""
        query = (
            select(c.user_id, c.id, c.message)
            .where(
                c.tenant == tenant,
                member_of(c.user_id, user_ids, self._db.dialect),
                c.delivery_status.in_(COUNTED),
                c.sent_at >= since,
            )
            .order_by(c.user_id, c.sent_at.desc())
        )
        out: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for user_id, send_id, message in await conn.execute(query):
            if len(out[user_id]) < limit:
                out[user_id].append((send_id, message))
        return out

    async def claimed(self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], cycle_key: str) -> set[str]:
        """The users among ``user_ids`` whose send of this cycle is claimed already."""
        query = select(c.user_id).where(
            c.tenant == tenant, member_of(c.user_id, user_ids, self._db.dialect), c.cycle_key == cycle_key
        )
        return set((await conn.execute(query)).scalars())

    async def hold(self, tenant: str, user_ids: Sequence[str], cycle_key: str, now: datetime) -> set[str]:
        """Hold this cycle's slot for the users whose slot no other run holds and no send has
        taken (one transaction); the users held, whose run may now decide (the race's
        losers stop here, before any LLM call)."""
        if not user_ids:
            return set()
        async with self._db.transaction() as conn:
            taken = await self.claimed(conn, tenant, user_ids, cycle_key)
            free = [u for u in user_ids if u not in taken]
            if not free:
                return set()
            rows = [{"tenant": tenant, "user_id": u, "cycle_key": cycle_key, "claimed_at": now} for u in free]
            held = await conn.execute(
                insert_or_ignore(self._db.dialect, proactive_cycle_claims).values(rows).returning(
                    proactive_cycle_claims.c.user_id
                )
            )
            return set(held.scalars())

    async def release(self, tenant: str, user_ids: Sequence[str], cycle_key: str) -> None:
        """Let the slot go (a run that sent keeps it through its send's row)."""
        if user_ids:
            async with self._db.transaction() as conn:
                k = proactive_cycle_claims.c
                await conn.execute(
                    delete(proactive_cycle_claims).where(
                        k.tenant == tenant,
                        member_of(k.user_id, user_ids, self._db.dialect),
                        k.cycle_key == cycle_key,
                    )
                )

    async def claim(self, conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
        """Insert the claims (one statement for a batch). The caller holds the users' locks and found
        no claim of this cycle under them; a clash anyway is the unique key's error, not a skip."""
        if rows:
            await conn.execute(insert(proactive_sends), list(rows))

    async def finish(self, conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
        """Deliveries that ended (``status`` sent or failed): out of the outbox, in one statement per
        kind. Each row: tenant, id, status, detail, and ``delivered_at``, a later delivery's time, which
        the cap, the cooldown and the reply latency then count from."""
        plain = [r for r in rows if r["delivered_at"] is None]
        later = [r for r in rows if r["delivered_at"] is not None]
        values: dict[str, Any] = {
            "delivery_status": bindparam("b_status"),
            "delivery_detail": bindparam("b_detail"),
            "next_attempt_at": None,
        }
        where = (c.tenant == bindparam("b_tenant"), c.id == bindparam("b_id"))
        for batch, extra in ((plain, {}), (later, {"sent_at": bindparam("b_at", type_=c.sent_at.type)})):
            if batch:
                await conn.execute(
                    update(proactive_sends).where(*where).values(**values, **extra),
                    [
                        {
                            "b_tenant": r["tenant"],
                            "b_id": r["id"],
                            "b_status": r["status"],
                            "b_detail": r["detail"][:500] if r["detail"] else None,
                            "b_at": r["delivered_at"],
                        }
                        for r in batch
                    ],
                )

    async def retry_at(self, conn: AsyncConnection, tenant: str, send_id: str, at: datetime, *, detail: str) -> None:
        """The delivery failed in a way worth retrying: still ``sending``, due again at ``at``."""
        await conn.execute(
            update(proactive_sends)
            .where(c.tenant == tenant, c.id == send_id, c.delivery_status == "sending")
            .values(next_attempt_at=at, delivery_detail=detail[:500])
        )

    async def outbox_due(
        self, conn: AsyncConnection, now: datetime, tenant: str | None, *, stale_before: datetime, limit: int
    ) -> list[Any]:
        """Sends still ``sending`` whose lease or back-off ran out, oldest first (and any left
        ``sending`` with no lease by a version before the outbox, once their lease would have)."""
        due = or_(c.next_attempt_at <= now, and_(c.next_attempt_at.is_(None), c.sent_at <= stale_before))
        query = select(proactive_sends).where(SENDING, due)
        if tenant is not None:
            query = query.where(c.tenant == tenant)
        return list((await conn.execute(query.order_by(c.sent_at).limit(limit))).all())

    async def take(
        self,
        conn: AsyncConnection,
        tenant: str,
        send_id: str,
        seen: datetime | None,
        lease_until: datetime,
        attempts: int,
    ) -> bool:
        """Compare-and-set: the send is ours when its ``next_attempt_at`` is still what we read."""
        same = c.next_attempt_at.is_(None) if seen is None else c.next_attempt_at == seen
        result = await conn.execute(
            update(proactive_sends)
            .where(c.tenant == tenant, c.id == send_id, c.delivery_status == "sending", same)
            .values(next_attempt_at=lease_until, attempts=attempts)
        )
        return bool(result.rowcount)

    async def tenants_with_pending(self, conn: AsyncConnection) -> list[str]:
        query = select(c.tenant).where(PENDING, c.delivery_status == "sent").distinct()
        return list((await conn.execute(query)).scalars())

    async def tenants_sending(self, conn: AsyncConnection) -> list[str]:
        query = select(c.tenant).where(SENDING).distinct()
        return list((await conn.execute(query)).scalars())

    async def pending(self, conn: AsyncConnection, tenant: str, user_id: str) -> list[Any]:
        """The user's sends a reply can answer, newest first: delivered ones, and one whose first
        delivery is under way. A channel can put the message in front of the user before its own
        answer comes back, and a reply in that gap answers it (counting it ignored later was the
        bug). A send that failed an attempt and waits for its retry has not reached the user."""
        in_flight = and_(c.delivery_status == "sending", c.delivery_detail.is_(None))
        query = (
            select(proactive_sends)
            .where(
                c.tenant == tenant,
                c.user_id == user_id,
                PENDING,
                or_(c.delivery_status == "sent", in_flight),
            )
            .order_by(c.sent_at.desc())
        )
        return list((await conn.execute(query)).all())

    async def set_outcome(
        self,
        conn: AsyncConnection,
        tenant: str,
        send_ids: Sequence[str],
        outcome: FeedbackOutcome,
        at: datetime,
        *,
        latency: float | None = None,
    ) -> None:
        if send_ids:
            labelled = (c.tenant == tenant, c.id.in_(send_ids), c.outcome == "pending")
            await _record_outcome(conn, tenant, labelled, outcome, at)
            await conn.execute(
                update(proactive_sends)
                .where(*labelled)
                .values(outcome=outcome, outcome_at=at, response_latency_seconds=latency)
            )

    async def expire_pending(self, conn: AsyncConnection, tenant: str, before: datetime, at: datetime) -> int:
        """Seed 004 §5: no reply ``ignore_timeout`` after a send → ignored (one statement for everyone).
        Only a delivered send can be ignored: one that never reached the user (failed, or still
        being delivered), counted ignored, would teach the scores a reply it never had a chance
        to get."""
        expired = (c.tenant == tenant, PENDING, c.delivery_status == "sent", c.sent_at < before)
        await _record_outcome(conn, tenant, expired, "ignored", at)
        result = await conn.execute(update(proactive_sends).where(*expired).values(outcome="ignored", outcome_at=at))
        return int(result.rowcount)

    async def window(
        self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], since: datetime
    ) -> dict[str, list[tuple[str, str, float | None, list[str]]]]:
        """(category, outcome, latency, trigger signal types) of each user's delivered sends since
        ``since``, in one query for a batch of users."""
        query = select(c.user_id, c.category, c.outcome, c.response_latency_seconds, c.trigger_signals).where(
            c.tenant == tenant,
            member_of(c.user_id, user_ids, self._db.dialect),
            c.sent_at >= since,
            c.delivery_status == "sent",
        )
        out: dict[str, list[tuple[str, str, float | None, list[str]]]] = defaultdict(list)
        for r in await conn.execute(query):
            out[r[0]].append((r[1], r[2], r[3], list(r[4] or [])))
        return out

    async def window_dated(
        self, conn: AsyncConnection, tenant: str, user_id: str, since: datetime
    ) -> list[tuple[str, str, datetime, list[str]]]:
        """(category, outcome, sent_at, signal types) of the user's delivered sends since ``since``
        (for suppression)."""
        query = select(c.category, c.outcome, c.sent_at, c.trigger_signals).where(
            c.tenant == tenant, c.user_id == user_id, c.sent_at >= since, c.delivery_status == "sent"
        )
        return [(r[0], r[1], r[2], list(r[3] or [])) for r in await conn.execute(query)]

    async def users_to_expire(self, conn: AsyncConnection, tenant: str, before: datetime) -> list[str]:
        query = (
            select(c.user_id)
            .where(c.tenant == tenant, PENDING, c.delivery_status == "sent", c.sent_at < before)
            .distinct()
        )
        return list((await conn.execute(query)).scalars())

    async def by_ids(self, tenant: str, user_id: str, ids: Sequence[str]) -> list[ProactiveFeedback]:
        query = select(proactive_sends).where(c.tenant == tenant, c.user_id == user_id, c.id.in_(list(ids)))
        async with self._db.connect() as conn:
            return [feedback_model(row) for row in await conn.execute(query.order_by(c.sent_at.desc()))]

    async def list(
        self,
        tenant: str,
        *,
        user_id: str | None,
        outcome: str | None,
        category: str | None,
        since: datetime | None,
        limit: int,
        offset: int,
    ) -> Page[ProactiveFeedback]:
        query = where_given(
            select(proactive_sends).where(c.tenant == tenant),
            ((c.user_id, user_id), (c.outcome, outcome), (c.category, category)),
            created_at=c.sent_at,
            since=since,
        )
        query = query.order_by(c.sent_at.desc(), c.id)
        async with self._db.connect() as conn:
            return await fetch_page(conn, query, feedback_model, limit=limit, offset=offset)


async def _record_outcome(
    conn: AsyncConnection, tenant: str, sends: tuple[ColumnElement[bool] | TextClause, ...], outcome: str, at: datetime
) -> None:
    """The cycle's decision record gets its send's feedback as its outcome, in the same
    transaction: a decision's page, the calibration of scores against engagement and the
    decision list read it there (else an answered send shows "Outcome none yet")."""
    decided = [row[0] for row in await conn.execute(select(c.decision_id).where(*sends, c.decision_id.is_not(None)))]
    if not decided:
        return
    # by primary key: with the ids as a subquery SQLite walked every decision of the tenant (the month
    # bench's slowest statement, growing with the table)
    d = decision_records.c
    for start in range(0, len(decided), 500):
        ids = decided[start : start + 500]
        await conn.execute(
            update(decision_records).where(d.id.in_(ids), d.tenant == tenant).values(outcome=outcome, outcome_at=at)
        )
