"""Beta-Bernoulli confidence with fractional evidence (GLADyS ``storage.py``), minus its bug.

Confidence is the mean of Beta(alpha, beta). Feedback adds ``magnitude × feedback_weight``
to alpha (positive) or beta (negative). The fix (ORIGINS §1.8 bug 1): a new heuristic's
prior is *derived from its initial confidence* and an effective sample size ``n``,
``alpha = c·n, beta = (1−c)·n``, so a heuristic created at 0.3 reads 0.3 until evidence
arrives and its first update moves it a little, not to 0.667. With ``n = 2`` and
``c = 0.5`` this is GLADyS's Beta(1, 1), so its worked numbers still hold.

Per-heuristic constraints (seed 001, F-24): ``locked`` freezes it, ``floor``/``ceiling``
bound the reported confidence, ``feedback_weight`` ∈ [0.25, 2.0] scales every update.
The same formula exists as a SQL expression so updates are atomic in the database.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, case, literal

__all__ = ["MIN_EVIDENCE", "BetaConfidence", "bounded", "confidence_sql"]

MIN_EVIDENCE = 1e-9
"""Pseudo-counts are kept strictly positive so a prior of exactly 0 or 1 stays a valid Beta."""


def bounded(mean: float, floor: float = 0.0, ceiling: float = 1.0) -> float:
    return min(ceiling, max(floor, mean))


@dataclass(frozen=True, slots=True)
class BetaConfidence:
    alpha: float
    beta: float

    @classmethod
    def from_prior(cls, confidence: float, strength: float) -> BetaConfidence:
        """The prior whose mean is ``confidence`` and whose weight is ``strength`` observations."""
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence must be in [0, 1], got {confidence}")
        if strength <= 0:
            raise ValueError(f"prior strength must be positive, got {strength}")
        return cls(
            alpha=max(confidence * strength, MIN_EVIDENCE),
            beta=max((1.0 - confidence) * strength, MIN_EVIDENCE),
        )

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    def updated(self, *, positive: bool, weight: float) -> BetaConfidence:
        """Evidence of ``weight`` observations (magnitude × feedback_weight) for or against."""
        if positive:
            return BetaConfidence(self.alpha + weight, self.beta)
        return BetaConfidence(self.alpha, self.beta + weight)


def confidence_sql(
    alpha: ColumnElement[float],
    beta: ColumnElement[float],
    floor: ColumnElement[float],
    ceiling: ColumnElement[float],
) -> ColumnElement[float]:
    """``bounded(alpha / (alpha + beta), floor, ceiling)`` as portable SQL (no LEAST/GREATEST)."""
    mean = alpha / (alpha + beta + literal(0.0))
    return case((mean < floor, floor), (mean > ceiling, ceiling), else_=mean)
