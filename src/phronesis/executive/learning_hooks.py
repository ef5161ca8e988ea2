"""How the executive reaches the learning decision point without importing it (they meet in the engine).

A heuristic-path decision is a fire: learning must know it, so implicit signals (timeout,
undo, ignore) reach the heuristic the user saw and no other. A rating of that decision
is learning's explicit channel (last click wins).
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.feedback.models import Feedback
from phronesis.heuristics.models import ConfidenceUpdate

__all__ = ["NOT_A_FIRE", "FireRater", "FireRecorder", "NotAFire"]


class FireRecorder(Protocol):
    async def __call__(
        self, conn: AsyncConnection, tenant: str, heuristic_id: str, *, event_id: str, source: str, response_id: str
    ) -> None: ...


class NotAFire:
    """The response names no recorded fire (e.g. a decision made before fires were recorded)."""


NOT_A_FIRE = NotAFire()


class FireRater(Protocol):
    async def __call__(
        self, conn: AsyncConnection, tenant: str, response_id: str, feedback: Feedback, signed: float
    ) -> ConfidenceUpdate | None | NotAFire: ...
