"""How well a replayed policy would have done, from what the logs establish.

*Direct*: the replayed decision's outcome is known (it is the logged, rated decision, or the
rating says what was right): successes over those, with a Wilson interval.

*Inverse propensity* (IPS) and *self-normalised* IPS (SNIPS): when the logging policy was
randomised and recorded the probability of what it did (its propensity) and of what the replayed
policy would do, a logged decision that matches the replayed one is weighted by 1 / propensity,
so the matches stand for the decisions the logging policy made otherwise. Unbiased where the
logging policy could have made the replayed choice (probability > 0): the estimate is over
those decisions only, and the report gives their share as its coverage. Intervals are the
normal approximation (95 %), by the delta method for SNIPS, widened to at least the Wilson
interval at the effective sample size of the matching decisions: one or two matches of the same
reward have no variance, and a zero-width interval would claim a certainty the logs do not hold
(one ignored message would read "0.0 % (95 % 0.0–0.0 %)"). With no logged decision
matching the replayed one, there is no estimate at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from phronesis.executive.report import wilson_interval
from phronesis.replay.models import Estimate, WeightedEstimate

__all__ = ["Weighted", "direct", "ips", "snips"]

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Weighted:
    """One rated decision the replayed policy is supported on: its reward (1 success, 0 failure)
    and its weight, 1 / the logging propensity of its action when the replayed policy makes the
    same choice, else 0."""

    reward: float
    weight: float


def direct(successes: int, covered: int) -> Estimate:
    return Estimate(
        successes=successes,
        covered=covered,
        rate=successes / covered if covered else None,
        interval=wilson_interval(successes, covered),
    )


def _clip(low: float, high: float) -> tuple[float, float]:
    return max(0.0, low), min(1.0, high)


def _interval(rate: float, half: float, logged: Sequence[Weighted]) -> tuple[float, float]:
    """The normal interval, no narrower than Wilson's at the matches' effective sample size."""
    weights = [d.weight for d in logged if d.weight > 0.0]
    effective = sum(weights) ** 2 / sum(w * w for w in weights)
    low, high = _clip(rate - half, rate + half)
    wilson = wilson_interval(min(1.0, max(0.0, rate)) * effective, effective)
    return (low, high) if wilson is None else (min(low, wilson[0]), max(high, wilson[1]))


def _none(method: Literal["ips", "snips"], n: int, rated: int) -> WeightedEstimate:
    """No logged decision made the replayed choice: nothing to weigh."""
    return WeightedEstimate(method=method, rate=None, interval=None, decisions=n, coverage=n / rated if rated else 0.0)


def ips(logged: Sequence[Weighted], rated: int) -> WeightedEstimate:
    """Mean of weight × reward over the supported decisions."""
    n = len(logged)
    if not any(d.weight > 0.0 for d in logged):
        return _none("ips", n, rated)
    terms = [d.weight * d.reward for d in logged]
    mean = sum(terms) / n
    variance = sum((t - mean) ** 2 for t in terms) / max(n - 1, 1)
    half = Z95 * math.sqrt(variance / n)
    return WeightedEstimate(
        method="ips", rate=mean, interval=_interval(mean, half, logged), decisions=n, coverage=n / rated
    )


def snips(logged: Sequence[Weighted], rated: int) -> WeightedEstimate:
    """Σ weight × reward / Σ weight: bounded in [0, 1], lower variance, slightly biased."""
    n = len(logged)
    total = sum(d.weight for d in logged)
    if n == 0 or total == 0.0:
        return _none("snips", n, rated)
    rate = sum(d.weight * d.reward for d in logged) / total
    mean_weight = total / n
    variance = sum((d.weight * (d.reward - rate)) ** 2 for d in logged) / n / mean_weight**2
    half = Z95 * math.sqrt(variance / n)
    return WeightedEstimate(
        method="snips", rate=rate, interval=_interval(rate, half, logged), decisions=n, coverage=n / rated
    )
