"""Seed 004 §2 ``build_context``: what candidate generation knows about the user right now."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from phronesis.proactive.models import DeferredInsight, FeedbackSummary, Signal, UserProfile
from phronesis.proactive.trust import Trust

__all__ = ["CycleContext"]


@dataclass(frozen=True, slots=True)
class CycleContext:
    user: UserProfile
    trust: Trust
    signals: list[Signal]
    recent_messages: list[str]
    deferred: list[DeferredInsight]
    feedback: FeedbackSummary
    feedback_days: int
    local_time: datetime
    now: datetime
    recent_subjects: dict[str, frozenset[str]] = field(default_factory=dict)
    """What each recent message was about: the titles of the signals it was sent for (a
    repeat is judged by what a message is about before how it is worded)."""

    @property
    def timezone(self) -> str:
        return self.user.timezone

    @property
    def patterns(self) -> list[str]:
        return self.user.patterns

    def describe(self) -> dict[str, object]:
        """The context as the decision record keeps it (inputs of the decision)."""
        return {
            "trust": self.trust.info(),
            "signals": [
                {"type": s.type, "urgency": s.urgency_hint, "context_only": s.context_only} for s in self.signals
            ],
            "recent_messages": len(self.recent_messages),
            "deferred_insights": len(self.deferred),
            "feedback": self.feedback.model_dump(),
            "patterns": len(self.patterns),
            "local_time": self.local_time.isoformat(),
        }
