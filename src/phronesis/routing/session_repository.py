"""Sessions in the relational store. Counters move in SQL, so concurrent turns never lose one."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.clock import Clock
from phronesis.exceptions import ConflictError, NotFoundError
from phronesis.ids import new_id
from phronesis.routing.sessions import Message, MessageIn, NewSession, Session, SessionMode
from phronesis.storage.database import Database
from phronesis.storage.tables import routing_messages, routing_sessions

__all__ = ["SessionRepository"]

MAX_SOURCES_KEPT = 8


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
        async with self._db.connect() as conn:
            return await self._read(conn, tenant, session_id, turns, lock=False)

    async def get_for_update(self, conn: AsyncConnection, tenant: str, session_id: str, *, turns: int) -> Session:
        """Read the session and lock its row (PostgreSQL), so two turns of one session serialise."""
        return await self._read(conn, tenant, session_id, turns, lock=True)

    async def _read(self, conn: AsyncConnection, tenant: str, session_id: str, turns: int, *, lock: bool) -> Session:
        query = select(routing_sessions).where(routing_sessions.c.tenant == tenant, routing_sessions.c.id == session_id)
        if lock and conn.dialect.name == "postgresql":
            query = query.with_for_update()
        row = (await conn.execute(query)).one_or_none()
        if row is None:
            raise NotFoundError("session", session_id)
        messages: list[Message] = []
        if turns:
            m = routing_messages.c
            recent = await conn.execute(
                select(m.role, m.text, m.decision_id, m.created_at)
                .where(m.tenant == tenant, m.session_id == session_id)
                .order_by(m.id.desc())
                .limit(turns)
            )
            messages = [Message.model_validate(dict(r._mapping)) for r in reversed(recent.all())]
        data = dict(row._mapping)
        data.pop("tenant")
        return Session.model_validate(data | {"recent_messages": messages})

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
        await conn.execute(
            insert(routing_messages).values(
                tenant=tenant,
                session_id=session_id,
                role=message.role,
                text=message.text,
                decision_id=decision_id,
                created_at=now,
            )
        )
        await conn.execute(
            update(routing_sessions)
            .where(routing_sessions.c.tenant == tenant, routing_sessions.c.id == session_id)
            .values(message_count=routing_sessions.c.message_count + 1, updated_at=now)
        )

    async def after_turn(
        self,
        conn: AsyncConnection,
        tenant: str,
        session: Session,
        *,
        clarified: bool,
        sources: list[dict[str, Any]] | None,
    ) -> None:
        """The turn's effects on the session: clarification streak and remembered sources."""
        values: dict[str, Any] = {
            "clarifications": routing_sessions.c.clarifications + 1 if clarified else 0,
            "updated_at": self._clock.now(),
        }
        if sources:
            kept = (sources + [s for s in session.retrieved_sources if s["id"] not in {x["id"] for x in sources}])[
                :MAX_SOURCES_KEPT
            ]
            values["retrieved_sources"] = kept
        await conn.execute(
            update(routing_sessions)
            .where(routing_sessions.c.tenant == tenant, routing_sessions.c.id == session.id)
            .values(**values)
        )

    async def set_mode(
        self, conn: AsyncConnection, tenant: str, session_id: str, mode: SessionMode, *, reason: str | None = None
    ) -> None:
        now = self._clock.now()
        values: dict[str, Any] = {"mode": mode, "updated_at": now, "clarifications": 0}
        if mode == "human":
            values |= {"escalation_reason": reason, "escalated_at": now}
        result = await conn.execute(
            update(routing_sessions)
            .where(routing_sessions.c.tenant == tenant, routing_sessions.c.id == session_id)
            .values(**values)
        )
        if result.rowcount == 0:
            raise NotFoundError("session", session_id)

    async def count_tool_call(self, conn: AsyncConnection, tenant: str, session_id: str, *, success: bool) -> None:
        c = routing_sessions.c
        await conn.execute(
            update(routing_sessions)
            .where(c.tenant == tenant, c.id == session_id)
            .values(
                tool_calls=c.tool_calls + 1,
                tool_failures=c.tool_failures + (0 if success else 1),
                updated_at=self._clock.now(),
            )
        )
