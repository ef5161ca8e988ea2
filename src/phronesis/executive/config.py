"""Configuration of the executive strategies (seed 000 ``HeuristicFirstConfig``)."""

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

    def __post_init__(self) -> None:
        if not 0.0 <= self.confidence_threshold <= 1.0:
            raise ValueError("confidence_threshold must be in [0, 1]")
        if not 1 <= self.max_candidates <= 5:
            raise ValueError("max_candidates must be between 1 and 5 (seed 000: hard max 5)")
        if not 0.0 <= self.llm_confidence_ceiling <= 1.0:
            raise ValueError("llm_confidence_ceiling must be in [0, 1]")
