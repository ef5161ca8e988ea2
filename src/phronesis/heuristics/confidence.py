"""Beta-Bernoulli confidence with fractional evidence (GLADyS ``storage.py``), minus its bug.

Confidence is the mean of Beta(alpha, beta). Feedback adds ``magnitude × feedback_weight``
to alpha (positive) or beta (negative). The fix (ORIGINS §1.8 bug 1): a new heuristic's
prior is *derived from its initial confidence* and an effective sample size ``n``,
``alpha = c·n, beta = (1−c)·n``, so a heuristic created at 0.3 reads 0.3 until evidence
arrives and its first update moves it a little, not to 0.667. With ``n = 2`` and
``c = 0.5`` this is GLADyS's Beta(1, 1), so its worked numbers still hold.

Per-heuristic constraints (seed 001, F-24): ``locked`` freezes it, ``floor``/``ceiling``
bound the reported confidence, ``feedback_weight`` ∈ [0.25, 2.0] scales every update.
Updates go through ``evidence_writer`` under a row lock, so they are atomic in the database.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

__all__ = [
    "MIN_EVIDENCE",
    "BetaConfidence",
    "BetaEvidence",
    "DiscountedBetaEvidence",
    "Evidence",
    "EvidenceModel",
    "bounded",
]

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


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a heuristic row holds about its confidence: pseudo-counts, its prior, and when evidence last arrived."""

    alpha: float
    beta: float
    prior_alpha: float
    prior_beta: float
    evidence_at: datetime | None = None

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)


class EvidenceModel(Protocol):
    """How evidence accumulates: memory owns the math (seed 001), a learning strategy chooses the model."""

    name: str

    def add(self, evidence: Evidence, *, positive: bool, weight: float, now: datetime) -> Evidence: ...

    def remove(
        self, evidence: Evidence, *, positive: bool, weight: float, added_at: datetime, now: datetime
    ) -> Evidence:
        """Take back evidence given at ``added_at`` (an explicit click replaced by a later one)."""
        ...

    def restore(
        self, evidence: Evidence, *, positive: bool, weight: float, added_at: datetime, now: datetime
    ) -> Evidence:
        """Put back evidence given at ``added_at`` that was taken back (a soft outcome a rating had
        replaced, when the rating is withdrawn): what is left of it today, as ``remove`` took it."""
        ...


class BetaEvidence:
    """GLADyS's Beta-Bernoulli: evidence never fades."""

    name = "beta"

    def add(self, evidence: Evidence, *, positive: bool, weight: float, now: datetime) -> Evidence:
        return replace(
            evidence,
            alpha=evidence.alpha + (weight if positive else 0.0),
            beta=evidence.beta + (0.0 if positive else weight),
            evidence_at=now,
        )

    def remove(
        self, evidence: Evidence, *, positive: bool, weight: float, added_at: datetime, now: datetime
    ) -> Evidence:
        return replace(
            evidence,
            alpha=max(evidence.alpha - (weight if positive else 0.0), MIN_EVIDENCE),
            beta=max(evidence.beta - (0.0 if positive else weight), MIN_EVIDENCE),
        )

    def restore(
        self, evidence: Evidence, *, positive: bool, weight: float, added_at: datetime, now: datetime
    ) -> Evidence:
        return self.add(evidence, positive=positive, weight=weight, now=now)


class DiscountedBetaEvidence:
    """Discounted Beta: evidence above the prior halves every ``half_life_s``.

    A heuristic that worked for months and then stops working is carried by its old
    successes in the plain Beta model for as many failures as it had successes; here
    the old successes have faded, so a handful of recent failures moves it
    ("loses confidence in days, not months"). The prior never fades, so a heuristic
    nobody gives feedback on drifts back to where it started, not to 0.5.
    """

    name = "discounted_beta"

    def __init__(self, half_life_s: float) -> None:
        if not half_life_s > 0:
            raise ValueError(f"half-life must be positive, got {half_life_s}")
        self.half_life_s = half_life_s

    def factor(self, since: datetime | None, now: datetime) -> float:
        if since is None:
            return 1.0
        elapsed = max(0.0, (now - since).total_seconds())
        return float(0.5 ** (elapsed / self.half_life_s))

    def _discounted(self, evidence: Evidence, now: datetime) -> Evidence:
        keep = self.factor(evidence.evidence_at, now)
        return replace(
            evidence,
            alpha=evidence.prior_alpha + max(0.0, evidence.alpha - evidence.prior_alpha) * keep,
            beta=evidence.prior_beta + max(0.0, evidence.beta - evidence.prior_beta) * keep,
            evidence_at=now,
        )

    def add(self, evidence: Evidence, *, positive: bool, weight: float, now: datetime) -> Evidence:
        current = self._discounted(evidence, now)
        return replace(
            current,
            alpha=current.alpha + (weight if positive else 0.0),
            beta=current.beta + (0.0 if positive else weight),
        )

    def remove(
        self, evidence: Evidence, *, positive: bool, weight: float, added_at: datetime, now: datetime
    ) -> Evidence:
        current = self._discounted(evidence, now)
        faded = weight * self.factor(added_at, now)  # what is left of it today
        return replace(
            current,
            alpha=max(current.alpha - (faded if positive else 0.0), current.prior_alpha),
            beta=max(current.beta - (0.0 if positive else faded), current.prior_beta),
        )

    def restore(
        self, evidence: Evidence, *, positive: bool, weight: float, added_at: datetime, now: datetime
    ) -> Evidence:
        return self.add(evidence, positive=positive, weight=weight * self.factor(added_at, now), now=now)
