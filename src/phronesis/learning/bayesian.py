"""Seed 001's default strategy: implicit signals weigh 1.0, explicit 0.8 (F-03), Beta evidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from phronesis.heuristics.channel import Channel
from phronesis.heuristics.confidence import BetaEvidence, EvidenceModel
from phronesis.learning.follow_ups import DEFAULT_THANKS, DEFAULT_UNDO, FollowUpReader
from phronesis.learning.types import FeedbackSignal, FireRecord, SignalType

__all__ = ["BayesianStrategy", "BayesianStrategyConfig"]

UNDO_TEXT_CHARS = 100  # seed 001: metadata undo_text[:100]

CONFIRM_KEYWORDS = DEFAULT_THANKS
"""Phrases that confirm the open fires of their source (seed 001's ``user_implicit`` positive), read
with the rest of the follow-up (``learning.follow_ups``): a praise word alone ("great", "nice") counts
only when said of the action, and a complaint or a question never does."""


@dataclass(frozen=True, slots=True)
class BayesianStrategyConfig:
    undo_window_sec: float = 30.0  # F-11
    ignored_threshold: int = 3
    undo_keywords: tuple[str, ...] = DEFAULT_UNDO
    confirm_keywords: tuple[str, ...] = CONFIRM_KEYWORDS
    implicit_magnitude: float = 1.0  # F-03: implicit ("it worked in practice") outweighs explicit
    explicit_magnitude: float = 0.8

    def __post_init__(self) -> None:
        if not self.undo_window_sec > 0:
            raise ValueError("undo_window_sec must be positive")
        if self.ignored_threshold < 1:
            raise ValueError("ignored_threshold must be at least 1")
        if not (0 < self.implicit_magnitude <= 10 and 0 < self.explicit_magnitude <= 10):
            raise ValueError("magnitudes must be in (0, 10]")


class BayesianStrategy:
    name = "bayesian"

    def __init__(self, config: BayesianStrategyConfig | None = None, *, evidence: EvidenceModel | None = None) -> None:
        self._config = config or BayesianStrategyConfig()
        self._reader = FollowUpReader(self._config.undo_keywords, self._config.confirm_keywords)
        self._evidence = evidence or BetaEvidence()

    @property
    def undo_window_sec(self) -> float:
        return self._config.undo_window_sec

    @property
    def evidence(self) -> EvidenceModel:
        return self._evidence

    @property
    def channel(self) -> Channel | None:
        return None  # seed 001: each outcome is a fixed signal

    def interpret_explicit_feedback(
        self, event_id: str, heuristic_id: str, positive: bool, source: str
    ) -> FeedbackSignal:
        return FeedbackSignal(
            signal_type=SignalType.POSITIVE if positive else SignalType.NEGATIVE,
            heuristic_id=heuristic_id,
            event_id=event_id,
            # F-23: developers rate as "dev"; every other explicit click is the user's
            source="dev" if source == "dev" else "user_explicit",
            magnitude=self._config.explicit_magnitude,
            metadata={"original_source": source},
        )

    def interpret_timeout(self, heuristic_id: str, event_id: str, elapsed_seconds: float) -> FeedbackSignal:
        return FeedbackSignal(
            signal_type=SignalType.POSITIVE,  # no news is good news
            heuristic_id=heuristic_id,
            event_id=event_id,
            source="implicit_timeout",
            magnitude=self._config.implicit_magnitude,
            metadata={"elapsed_seconds": elapsed_seconds},
        )

    def interpret_event_for_undo(self, event_text: str, recent_fires: list[FireRecord]) -> list[FeedbackSignal]:
        """An undo (``implicit_undo``) or a complaint (``implicit_complaint``: "that didn't help",
        "still cold"): each open fire it answers gets a negative."""
        reading = self._reader.read(event_text)
        if reading == "undo":
            return self._each(
                recent_fires, SignalType.NEGATIVE, "implicit_undo", {"undo_text": event_text[:UNDO_TEXT_CHARS]}
            )
        if reading == "complaint":
            metadata = {"complaint_text": event_text[:UNDO_TEXT_CHARS]}
            return self._each(recent_fires, SignalType.NEGATIVE, "implicit_complaint", metadata)
        return []

    def interpret_event_for_confirmation(self, event_text: str, recent_fires: list[FireRecord]) -> list[FeedbackSignal]:
        """A follow-up that reads as thanks or confirmation: each open fire worked (``user_implicit``).
        An undo wins over thanks ("thanks, but undo that"): the module asks for undo first."""
        if self._reader.read(event_text) != "thanks":
            return []
        return self._each(
            recent_fires, SignalType.POSITIVE, "user_implicit", {"confirm_text": event_text[:UNDO_TEXT_CHARS]}
        )

    def _each(
        self, fires: list[FireRecord], kind: SignalType, source: str, metadata: dict[str, Any]
    ) -> list[FeedbackSignal]:
        """One implicit signal per fire the follow-up answered."""
        return [
            FeedbackSignal(
                signal_type=kind,
                heuristic_id=fire.heuristic_id,
                event_id=fire.event_id,
                source=source,
                magnitude=self._config.implicit_magnitude,
                metadata={**metadata, "fire_id": fire.id},
            )
            for fire in fires
        ]

    def interpret_ignore(self, heuristic_id: str, consecutive_count: int) -> FeedbackSignal:
        negative = consecutive_count >= self._config.ignored_threshold
        return FeedbackSignal(
            signal_type=SignalType.NEGATIVE if negative else SignalType.NEUTRAL,
            heuristic_id=heuristic_id,
            event_id="",
            source="implicit_ignored",
            magnitude=self._config.implicit_magnitude if negative else 0.0,
            metadata={"consecutive_count": consecutive_count},
        )

    @property
    def config(self) -> dict[str, Any]:
        return {
            "strategy": self.name,
            "evidence": self._evidence.name,
            "undo_window_sec": self._config.undo_window_sec,
            "ignored_threshold": self._config.ignored_threshold,
            "undo_keywords": list(self._config.undo_keywords),
            "confirm_keywords": list(self._config.confirm_keywords),
            "implicit_magnitude": self._config.implicit_magnitude,
            "explicit_magnitude": self._config.explicit_magnitude,
        }
