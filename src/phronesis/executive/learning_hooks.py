"""How the executive reaches the learning decision point without importing it (they meet in the engine).

A heuristic-path decision is a fire: learning must know it, so implicit signals (timeout,
undo, ignore) reach the heuristic the user saw and no other. A rating of that decision
is learning's explicit channel (last click wins). An event decided from a source is also
that source's follow-up to its open fires (``FollowUpObserver``), so an agent that only
calls decide gets undo, thanks and ignores counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.embeddings.types import Vectors
from phronesis.feedback.models import Feedback
from phronesis.heuristics.models import ConfidenceUpdate
from phronesis.storage.point_transaction import PointTransaction

__all__ = ["NOT_A_FIRE", "FireRater", "FireRecorder", "FollowUp", "FollowUpObserver", "NotAFire"]


class FireRecorder(Protocol):
    async def __call__(
        self,
        transaction: PointTransaction,
        tenant: str,
        heuristic_id: str,
        *,
        event_id: str,
        source: str,
        response_id: str,
        event_text: str | None = None,
        event_vector: Vectors | None = None,
        probation_of: str | None = None,
    ) -> None: ...


class NotAFire:
    """The response names no recorded fire (e.g. a decision made before fires were recorded)."""


NOT_A_FIRE = NotAFire()


class FireRater(Protocol):
    async def __call__(
        self, conn: AsyncConnection, tenant: str, response_id: str, feedback: Feedback, signed: float
    ) -> ConfidenceUpdate | None | NotAFire: ...


@dataclass(frozen=True, slots=True)
class FollowUp:
    """What an event did to its source's open fires."""

    undo: bool = False
    confirmed: bool = False
    fires: int = 0
    """Open fires of the source this event answered, ignored or confirmed (and closed)."""
    signals: int = 0
    """Signals that moved a heuristic: one per heuristic at most (neutral ignores do not count)."""
    undone: frozenset[str] = field(default_factory=frozenset)
    """Heuristics this event undid: they do not fire again for it, even if it matches them."""
    ignored_later: int = 0
    """Fires it ignored, the ignores applied just after the decision (they change nothing in it)."""

    def summary(self) -> dict[str, object]:
        return {
            "undo": self.undo,
            "confirmed": self.confirmed,
            "fires": self.fires,
            "signals": self.signals,
            "undone": sorted(self.undone),
            "ignored_later": self.ignored_later,
        }


class FollowUpObserver(Protocol):
    async def __call__(
        self,
        tenant: str,
        *,
        event_id: str,
        source: str,
        text: str,
        recurring: frozenset[str],
        reply_to: str | None = None,
    ) -> FollowUp: ...
