"""Stored feedback: the idempotency ledger and the evidence behind outcome rates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.clock import Clock, SystemClock
from phronesis.exceptions import ConflictError
from phronesis.feedback.models import Feedback
from phronesis.storage.database import Database
from phronesis.storage.tables import feedback as feedback_table

__all__ = ["TEACHING_EFFECTS", "FeedbackRepository", "Lesson"]

_FIELD = {"binary": "rating", "user": "user_score", "dev": "dev_score"}
"""The request field each scale is given in (a refusal names it)."""

TEACHING_EFFECTS = ("created", "reinforced", "withdrawn")
"""Ledger effects that change what an LLM-path decision taught: its last one stands."""


@dataclass(frozen=True, slots=True)
class Lesson:
    """What an LLM-path decision's standing rating taught: a heuristic created or reinforced."""

    effect: str
    heuristic_id: str
    key: str
    """The idempotency key of the feedback that taught it."""


class FeedbackRepository:
    def __init__(self, database: Database, *, clock: Clock | None = None) -> None:
        self._db = database
        self._clock = clock or SystemClock()

    async def ensure_new(self, tenant: str, key: str, *, connection: AsyncConnection | None = None) -> None:
        """Refuse a key that was already used, before any effect is computed."""
        c = feedback_table.c
        async with self._db.joined(connection) as conn:
            row = (await conn.execute(select(c.id).where(c.tenant == tenant, c.idempotency_key == key))).one_or_none()
        if row is not None:
            raise ConflictError("idempotency_key", f"feedback {key!r} was already recorded")

    async def resolve(self, tenant: str, feedback: Feedback, *, connection: AsyncConnection | None = None) -> Feedback:
        """The feedback with the idempotency key it is recorded under, refused if it is a duplicate.

        A caller's own key is used as given (a retry with it counts once). Without one, the last
        click wins (F-11): the same rating as the one standing is the same click twice and is
        refused; any other is accepted, even one given before and since replaced (👍 👎 👍 ends on
        👍). Each gets the response, scale and score as its key, numbered after the first."""
        if feedback.idempotency_key is not None:
            await self.ensure_new(tenant, feedback.idempotency_key, connection=connection)
            return feedback
        c = feedback_table.c
        query = select(c.scale, c.score).where(c.tenant == tenant, c.response_id == feedback.response_id).order_by(c.id)
        async with self._db.joined(connection) as conn:
            earlier = (await conn.execute(query)).all()
        if earlier and (earlier[-1].scale, earlier[-1].score) == (feedback.scale, feedback.score):
            said = f"the same click twice: {feedback.response_id!r} was last given this one already"
            raise ConflictError(_FIELD[feedback.scale], said)
        key = feedback.key if not earlier else f"{feedback.key}:{len(earlier)}"
        await self.ensure_new(tenant, key, connection=connection)
        return feedback.model_copy(update={"idempotency_key": key})

    async def standing_lesson(self, tenant: str, response_id: str, *, connection: AsyncConnection) -> Lesson | None:
        """The lesson this decision's ratings teach now: the last teaching row, unless it withdrew one."""
        c = feedback_table.c
        row = (
            await connection.execute(
                select(c.effect, c.heuristic_id, c.idempotency_key)
                .where(c.tenant == tenant, c.response_id == response_id, c.effect.in_(TEACHING_EFFECTS))
                .order_by(c.id.desc())
                .limit(1)
            )
        ).one_or_none()
        if row is None or row.effect == "withdrawn" or row.heuristic_id is None:
            return None
        return Lesson(row.effect, row.heuristic_id, row.idempotency_key)

    async def add(
        self,
        tenant: str,
        feedback: Feedback,
        *,
        magnitude: float,
        effect: str,
        heuristic_id: str | None,
        connection: AsyncConnection,
    ) -> None:
        """Insert in the caller's transaction; a concurrent duplicate key fails the whole transaction."""
        await self.ensure_new(tenant, feedback.key, connection=connection)
        values: dict[str, Any] = {
            "tenant": tenant,
            "idempotency_key": feedback.key,
            "response_id": feedback.response_id,
            "scale": feedback.scale,
            "score": feedback.score,
            "magnitude": magnitude,
            "source": feedback.source,
            "heuristic_id": heuristic_id,
            "effect": effect,
            "comment": feedback.comment,
            "created_at": self._clock.now(),
        }
        await connection.execute(insert(feedback_table).values(**values))
