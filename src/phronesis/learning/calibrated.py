"""A strategy whose confidence is a probability: implicit outcomes weighed through a learned channel.

Interpretation is seed 001's (the same keywords, windows and one-signal-per-fire rules) and
evidence fades as in ``discounted_beta``; what differs is what an implicit outcome is
worth. Seed 001 counts silence as a full success and an undo or a third ignore as a full
failure, so confidence follows how often silence follows a heuristic, a rank but not a
probability. Here every outcome, every single ignore included, is *soft* evidence weighed by
``P(helped | outcome)`` from the tenant's channel (``heuristics.channel``): a prior that
rated fires keep teaching. Explicit ratings stay hard evidence: they are what says whether a
fire helped.

``benchmarks/bench_learning.py``, unbiased raters, 50 fires per heuristic: ECE 0.13 with
``discounted_beta``, under 0.05 here; see the table in docs/decisions/learning.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from phronesis.heuristics.channel import DEFAULT_CHANNEL_PRIOR, DEFAULT_CHANNEL_PRIOR_STRENGTH, OUTCOMES, Channel
from phronesis.learning.bayesian import BayesianStrategyConfig
from phronesis.learning.discounted import DEFAULT_HALF_LIFE_S, DiscountedBetaStrategy
from phronesis.learning.types import FeedbackSignal, FireRecord, SignalType

__all__ = ["CalibratedStrategy"]


class CalibratedStrategy(DiscountedBetaStrategy):
    name = "calibrated"

    def __init__(
        self,
        config: BayesianStrategyConfig | None = None,
        *,
        half_life_s: float = DEFAULT_HALF_LIFE_S,
        channel_prior: Mapping[str, tuple[float, float]] = DEFAULT_CHANNEL_PRIOR,
        channel_prior_strength: float = DEFAULT_CHANNEL_PRIOR_STRENGTH,
    ) -> None:
        super().__init__(config, half_life_s=half_life_s)
        self._channel = Channel.prior(channel_prior, channel_prior_strength)
        self._prior = dict(channel_prior)
        self._strength = channel_prior_strength

    @property
    def channel(self) -> Channel:
        return self._channel

    def interpret_timeout(self, heuristic_id: str, event_id: str, elapsed_seconds: float) -> FeedbackSignal:
        return replace(super().interpret_timeout(heuristic_id, event_id, elapsed_seconds), soft=True)

    def interpret_event_for_undo(self, event_text: str, recent_fires: list[FireRecord]) -> list[FeedbackSignal]:
        # a complaint is not an outcome the channel has learned: it counts wholly against
        signals = super().interpret_event_for_undo(event_text, recent_fires)
        return [replace(s, soft=s.source in OUTCOMES) for s in signals]

    def interpret_event_for_confirmation(self, event_text: str, recent_fires: list[FireRecord]) -> list[FeedbackSignal]:
        return [replace(s, soft=True) for s in super().interpret_event_for_confirmation(event_text, recent_fires)]

    def interpret_ignore(self, heuristic_id: str, consecutive_count: int) -> FeedbackSignal:
        """Every ignore is an observation (the channel says how little one is worth), not only the third."""
        seed = super().interpret_ignore(heuristic_id, consecutive_count)
        return replace(seed, signal_type=SignalType.NEGATIVE, magnitude=self._config.implicit_magnitude, soft=True)

    @property
    def config(self) -> dict[str, Any]:
        return {
            **super().config,
            "channel_prior": {outcome: list(pair) for outcome, pair in self._prior.items()},
            "channel_prior_strength": self._strength,
        }
