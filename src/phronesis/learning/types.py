"""Seed 001's types: a signal about one heuristic firing, and the strategy that interprets events into signals.

The strategy owns interpretation only (seed 001 "Design Decision"); applying a signal —
constraints, bounds, decay, idempotency, the SQL — belongs to ``apply.py`` and memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import Field

from phronesis.heuristics.channel import Channel
from phronesis.heuristics.confidence import EvidenceModel

__all__ = [
    "EXPLICIT_SOURCES",
    "IMPLICIT_SOURCES",
    "SIGNAL_SOURCES",
    "FeedbackSignal",
    "FireRecord",
    "LearningStrategy",
    "SignalSource",
    "SignalType",
]


class SignalType(Enum):
    POSITIVE = "positive"
    NEGATIVE = "negative"
    NEUTRAL = "neutral"


SignalSource = Literal[
    "user_explicit",
    "user_implicit",
    "dev",
    "implicit_timeout",
    "implicit_undo",
    "implicit_complaint",
    "implicit_ignored",
    "llm_endorsement",
]
SIGNAL_SOURCES: tuple[str, ...] = SignalSource.__args__  # type: ignore[attr-defined]
IMPLICIT_SOURCES = frozenset(
    {"user_implicit", "implicit_timeout", "implicit_undo", "implicit_complaint", "implicit_ignored"}
)
"""One firing gets at most one of these (ORIGINS bug 3: a timeout positive *and* an ignore negative)."""
EXPLICIT_SOURCES = frozenset({"user_explicit", "dev"})
"""One firing gets at most one of these standing: the last explicit click wins (F-11)."""


@dataclass(frozen=True, slots=True)
class FeedbackSignal:
    signal_type: SignalType
    heuristic_id: str
    event_id: str
    source: str
    magnitude: float = 1.0
    """Weight of the signal (F-03); 0 on NEUTRAL."""
    metadata: dict[str, Any] = field(default_factory=dict)
    soft: bool = False
    """An implicit outcome (its ``source``) to weigh through the learned channel: how much it
    counts for or against is P(helped | outcome), not fixed (``calibrated`` strategy)."""


@dataclass(frozen=True, slots=True)
class FireRecord:
    """A heuristic that actually fired for an event — the only thing implicit signals may touch.

    Its ``id`` is the ``response_id`` to rate the fire with (``POST /v1/feedback``).
    """

    id: Annotated[
        str,
        Field(description="The fire's id, set by the server: send it as response_id to POST /v1/feedback to rate it."),
    ]
    heuristic_id: Annotated[str, Field(description="The heuristic that fired.")]
    event_id: Annotated[str, Field(description="The event it fired for, as sent.")]
    source: Annotated[
        str,
        Field(description="Where the event came from; later events from this source can undo, confirm or ignore it."),
    ]
    fired_at: Annotated[datetime, Field(description="When it fired (UTC).")]


@runtime_checkable
class LearningStrategy(Protocol):
    """Seed 001 ``LearningStrategy``; ``evidence`` is how memory turns its signals into confidence."""

    def interpret_explicit_feedback(
        self, event_id: str, heuristic_id: str, positive: bool, source: str
    ) -> FeedbackSignal: ...

    def interpret_timeout(self, heuristic_id: str, event_id: str, elapsed_seconds: float) -> FeedbackSignal: ...

    def interpret_event_for_undo(self, event_text: str, recent_fires: list[FireRecord]) -> list[FeedbackSignal]: ...

    def interpret_event_for_confirmation(
        self, event_text: str, recent_fires: list[FireRecord]
    ) -> list[FeedbackSignal]: ...

    def interpret_ignore(self, heuristic_id: str, consecutive_count: int) -> FeedbackSignal: ...

    @property
    def undo_window_sec(self) -> float: ...

    @property
    def evidence(self) -> EvidenceModel: ...

    @property
    def channel(self) -> Channel | None:
        """The channel prior when the strategy's implicit signals are ``soft``; None otherwise."""
        ...

    @property
    def config(self) -> dict[str, Any]: ...
