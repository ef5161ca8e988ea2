"""``create_learning_strategy``: settings (or a name) to a strategy; an unknown name is a clear error."""

from __future__ import annotations

from collections.abc import Callable

from phronesis.exceptions import ConfigurationError
from phronesis.learning.bayesian import BayesianStrategy, BayesianStrategyConfig
from phronesis.learning.calibrated import CalibratedStrategy
from phronesis.learning.discounted import DiscountedBetaStrategy
from phronesis.learning.settings import STRATEGY_NAMES, LearningSettings, unknown_strategy
from phronesis.learning.types import LearningStrategy

__all__ = ["LEARNING_STRATEGIES", "create_learning_strategy", "unknown_strategy"]

LEARNING_STRATEGIES: dict[str, Callable[[LearningSettings, BayesianStrategyConfig], LearningStrategy]] = {
    "bayesian": lambda _settings, config: BayesianStrategy(config),
    "discounted_beta": lambda settings, config: DiscountedBetaStrategy(config, half_life_s=settings.half_life_sec),
    "calibrated": lambda settings, config: CalibratedStrategy(
        config,
        half_life_s=settings.half_life_sec,
        channel_prior=settings.channel_prior,
        channel_prior_strength=settings.channel_prior_strength,
    ),
}
assert tuple(sorted(LEARNING_STRATEGIES)) == STRATEGY_NAMES, "a strategy's name is also settings' to check"



def create_learning_strategy(settings: LearningSettings | None = None, *, name: str | None = None) -> LearningStrategy:
    settings = settings or LearningSettings()
    chosen = name or settings.strategy
    build = LEARNING_STRATEGIES.get(chosen)
    if build is None:
        raise ConfigurationError(unknown_strategy(chosen))
    config = BayesianStrategyConfig(
        undo_window_sec=settings.undo_window_sec,
        ignored_threshold=settings.ignored_threshold,
        undo_keywords=tuple(settings.undo_keywords),
        confirm_keywords=tuple(settings.confirm_keywords),
        implicit_magnitude=settings.implicit_magnitude,
        explicit_magnitude=settings.explicit_magnitude,
    )
    return build(settings, config)
