"""Sessions in the relational store. Counters move in SQL, so concurrent turns never lose one."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, Update, bindparam, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.clock import Clock
from phronesis.exceptions import ConflictError, NotFoundError
from phronesis.ids import new_id
from phronesis.routing.sessions import Message, MessageIn, NewSession, Session, SessionMode
from phronesis.storage.database import Database
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.tables import routing_messages, routing_sessions

__all__ = ["SessionRepository", "TurnEffects"]

MAX_SOURCES_KEPT = 8

_s, _m = routing_sessions.c, routing_messages.c
_SESSION_KEYS = [column.key for column in routing_sessions.columns if column.key != "tenant"]
_MESSAGE_KEYS = ("role", "text", "decision_id", "created_at")
_INSERT_MESSAGE = routing_messages.insert()


@dataclass(frozen=True, slots=True)
class TurnEffects:
    """What a routed turn (not one a human owns) does to its session (seed 002)."""

    clarified: bool
    """A CLARIFY: the streak grows; anything else resets it."""
    sources: list[dict[str, Any]]
    """Knowledge-base sources the turn found, remembered latest first."""
    handed_off: bool = False
    """An ESCALATE: the session goes to a human."""
    reason: str | None = None
    """Why it was handed off."""
    pending: dict[str, Any] | None = None
    """What the session waits for after the turn (``routing.dialogue.Pending``); None clears it."""


# statements built once (building one per call costs more than running it)
_KEY = (_s.tenant == bindparam("w_tenant"), _s.id == bindparam("w_id"))
_SESSION = select(*(_s[key] for key in _SESSION_KEYS)).where(*_KEY)
_SESSION_LOCKED = _SESSION.with_for_update()
_MODE = select(_s.mode).where(*_KEY)
_MODE_LOCKED = _MODE.with_for_update()
_RECENT = (
    select(*(_m[key] for key in _MESSAGE_KEYS))
    .where(_m.tenant == bindparam("w_tenant"), _m.session_id == bindparam("w_id"))
    .order_by(_m.id.desc())
    .limit(bindparam("w_limit", type_=Integer))
)


@functools.cache
def _update(values: frozenset[str], counted: frozenset[str]) -> Update:
    """An UPDATE of one session: ``values`` set to bound ``v_<column>``, ``counted`` columns up by
    one in SQL (never read-modify-write); built once per shape."""
    assigned: dict[str, Any] = {name: bindparam(f"v_{name}", type_=_s[name].type) for name in values}
    assigned |= {name: _s[name] + 1 for name in counted}
    return update(routing_sessions).where(*_KEY).values(assigned)


def _updated(
    tenant: str, session_id: str, values: dict[str, Any], counted: Sequence[str]
) -> tuple[Update, dict[str, Any]]:
    """The statement and parameters that set ``values`` and count up ``counted``."""
    parameters = {f"v_{name}": value for name, value in values.items()} | {"w_tenant": tenant, "w_id": session_id}
    return _update(frozenset(values), frozenset(counted)), parameters


def _session(session_id: str, rows: Sequence[Sequence[Any]], recent: Sequence[Sequence[Any]]) -> Session:
    """The session of its row and its latest messages (newest first, as read)."""
    if not rows:
        raise NotFoundError("session", session_id)
    messages = [Message.model_validate(dict(zip(_MESSAGE_KEYS, r, strict=True))) for r in reversed(recent)]
    return Session.model_validate(dict(zip(_SESSION_KEYS, rows[0], strict=True)) | {"recent_messages": messages})


def _message_row(
    tenant: str, session_id: str, message: MessageIn, decision_id: str | None, now: datetime
) -> dict[str, Any]:
    return {
        "tenant": tenant,
        "session_id": session_id,
        "role": message.role,
        "text": message.text,
        "decision_id": decision_id,
        "created_at": now,
    }


def _mode_values(mode: SessionMode, reason: str | None, now: datetime) -> dict[str, Any]:
    values: dict[str, Any] = {"mode": mode, "updated_at": now, "clarifications": 0}
    if mode == "human":
        values |= {"escalation_reason": reason, "escalated_at": now}
    return values


def _turn_values(session: Session, clarified: bool, sources: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The remembered sources (latest first, at most 8) and, unless the streak grows, its reset."""
    values: dict[str, Any] = {} if clarified else {"clarifications": 0}
    if sources:
        found = {x["id"] for x in sources}
        values["retrieved_sources"] = (sources + [s for s in session.retrieved_sources if s["id"] not in found])[
            :MAX_SOURCES_KEPT
        ]
    return values


class SessionRepository:
    def __init__(self, database: Database, clock: Clock) -> None:
        self._db = database
        self._clock = clock

    async def create(self, tenant: str, new: NewSession) -> Session:
        session_id = new.id or new_id()
        now = self._clock.now()
        async with self._db.transaction() as conn:
            exists = await conn.scalar(
                select(func.count())
                .select_from(routing_sessions)
                .where(routing_sessions.c.tenant == tenant, routing_sessions.c.id == session_id)
            )
            if exists:
                raise ConflictError("id", f"session {session_id!r} already exists")
            await conn.execute(
                insert(routing_sessions).values(
                    tenant=tenant,
                    id=session_id,
                    mode="auto",
                    lead_context=new.lead_context,
                    retrieved_sources=[],
                    message_count=0,
                    created_at=now,
                    updated_at=now,
                )
            )
            for message in new.messages:
                await self.add_message(conn, tenant, session_id, message)
            return await self.get(tenant, session_id, connection=conn)

    async def get(
        self, tenant: str, session_id: str, *, turns: int = 5, connection: AsyncConnection | None = None
    ) -> Session:
        if connection is not None:
            return await self._read(connection, tenant, session_id, turns, lock=False)
        key = {"w_tenant": tenant, "w_id": session_id}
        # two point reads: on a SQLite file one hop each to its reader lane
        async with self._db.reading() as conn:
            rows = await self._db.read(_SESSION, key, connection=conn)
            recent = await self._db.read(_RECENT, key | {"w_limit": turns}, connection=conn) if rows and turns else []
        return _session(session_id, rows, recent)

    async def get_for_update(self, conn: AsyncConnection, tenant: str, session_id: str, *, turns: int) -> Session:
        """Read the session and lock its row (PostgreSQL), so two turns of one session serialise."""
        return await self._read(conn, tenant, session_id, turns, lock=True)

    async def _read(self, conn: AsyncConnection, tenant: str, session_id: str, turns: int, *, lock: bool) -> Session:
        key = {"w_tenant": tenant, "w_id": session_id}
        query = _SESSION_LOCKED if lock and conn.dialect.name == "postgresql" else _SESSION
        rows = (await conn.execute(query, key)).all()
        recent = (await conn.execute(_RECENT, key | {"w_limit": turns})).all() if rows and turns else []
        return _session(session_id, rows, recent)

    async def lock_mode(self, tx: PointTransaction, tenant: str, session_id: str) -> SessionMode:
        """The session's mode, its row locked (PostgreSQL; a SQLite file has one writer), so two
        turns of one session serialise: ``get_for_update`` for a decision's point transaction."""
        query = _MODE_LOCKED if self._db.dialect == "postgresql" else _MODE
        rows, _ = await tx.execute(query, {"w_tenant": tenant, "w_id": session_id})
        if not rows:
            raise NotFoundError("session", session_id)
        mode: SessionMode = rows[0][0]
        return mode

    async def record_turn(
        self,
        tx: PointTransaction,
        tenant: str,
        session: Session,
        message: MessageIn,
        *,
        decision_id: str,
        effects: TurnEffects | None,
    ) -> None:
        """A turn's message and its effects on the session (none if a human owns it), in the
        decision's point transaction: one queued insert and one UPDATE, rather than the async
        connection's four statements of four thread hops each to SQLite."""
        now = self._clock.now()
        await tx.insert([(_INSERT_MESSAGE, [_message_row(tenant, session.id, message, decision_id, now)])])
        values: dict[str, Any] = {"updated_at": now}
        counted = ["message_count"]
        if effects is not None:
            if effects.handed_off:
                values |= _mode_values("human", effects.reason, now)
            values |= _turn_values(session, effects.clarified, effects.sources)
            values["pending"] = None if effects.handed_off else effects.pending
            if effects.clarified:
                counted.append("clarifications")
        await tx.execute(*_updated(tenant, session.id, values, counted))

    async def add_message(
        self,
        conn: AsyncConnection,
        tenant: str,
        session_id: str,
        message: MessageIn,
        *,
        decision_id: str | None = None,
    ) -> None:
        now = self._clock.now()
        await conn.execute(_INSERT_MESSAGE, _message_row(tenant, session_id, message, decision_id, now))
        await conn.execute(*_updated(tenant, session_id, {"updated_at": now}, ["message_count"]))

    async def set_mode(
        self, conn: AsyncConnection, tenant: str, session_id: str, mode: SessionMode, *, reason: str | None = None
    ) -> None:
        result = await conn.execute(*_updated(tenant, session_id, _mode_values(mode, reason, self._clock.now()), []))
        if result.rowcount == 0:
            raise NotFoundError("session", session_id)

    async def count_tool_call(self, conn: AsyncConnection, tenant: str, session_id: str, *, success: bool) -> None:
        counted = ["tool_calls"] if success else ["tool_calls", "tool_failures"]
        await conn.execute(*_updated(tenant, session_id, {"updated_at": self._clock.now()}, counted))
