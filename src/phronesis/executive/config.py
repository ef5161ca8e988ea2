"""Configuration of the executive strategies (seed 000 ``HeuristicFirstConfig`` + the urgency design)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["THRESHOLD_BOUNDS", "StrategyConfig"]

THRESHOLD_BOUNDS = (0.3, 0.95)
"""Seed 000, F-24: a threshold adjusted by personality bias is clamped to this safe range."""


@dataclass(frozen=True, slots=True)
class StrategyConfig:
    confidence_threshold: float = 0.7
    max_candidates: int = 3  # shown to the LLM; hard max 5 (F-04)
    llm_confidence_ceiling: float = 0.8  # F-06
    max_text_chars: int = 4000
    # urgency_tiered (seed 000, "Planned: Urgency-Modulated Threshold")
    threshold_reduction: float = 0.3
    immediate_min_urgency: float = 0.7
    soon_min_urgency: float = 0.3
    reasonable_similarity: float = 0.7
    high_similarity: float = 0.85
    tie_epsilon: float = 0.02
    # exploration (heuristic_first): share of decisions with no confident candidate that may
    # fire one by Thompson sampling; 0 = off (see exploration.py)
    exploration_rate: float = 0.0

    def __post_init__(self) -> None:
        for name in (
            "confidence_threshold",
            "llm_confidence_ceiling",
            "threshold_reduction",
            "immediate_min_urgency",
            "soon_min_urgency",
            "reasonable_similarity",
            "high_similarity",
            "tie_epsilon",
            "exploration_rate",
        ):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1]")
        if not 1 <= self.max_candidates <= 5:
            raise ValueError("max_candidates must be between 1 and 5 (seed 000: hard max 5)")
        if self.soon_min_urgency > self.immediate_min_urgency:
            raise ValueError("soon_min_urgency must not exceed immediate_min_urgency")
