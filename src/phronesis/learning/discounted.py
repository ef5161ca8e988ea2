"""A second strategy that forgets: the Bayesian interpretation over discounted Beta evidence.

Interpretation is the seed's (same signals, same magnitudes); what differs is memory's
evidence model, which halves old evidence every ``half_life_s`` (``DiscountedBetaEvidence``).
The point is drift: a heuristic that used to work and stopped working falls below the
firing threshold after a few recent failures instead of after as many failures as it
ever had successes (``benchmarks/bench_learning.py`` measures both).
"""

from __future__ import annotations

from typing import Any

from phronesis.heuristics.confidence import DiscountedBetaEvidence
from phronesis.learning.bayesian import BayesianStrategy, BayesianStrategyConfig

__all__ = ["DEFAULT_HALF_LIFE_S", "DiscountedBetaStrategy"]

DEFAULT_HALF_LIFE_S = 24 * 3600.0


class DiscountedBetaStrategy(BayesianStrategy):
    name = "discounted_beta"

    def __init__(
        self, config: BayesianStrategyConfig | None = None, *, half_life_s: float = DEFAULT_HALF_LIFE_S
    ) -> None:
        super().__init__(config, evidence=DiscountedBetaEvidence(half_life_s))
        self._half_life_s = half_life_s

    @property
    def config(self) -> dict[str, Any]:
        return {**super().config, "half_life_s": self._half_life_s}
