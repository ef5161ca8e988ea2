"""The learning decision point (seed 001): feedback signals → heuristic confidence."""

from __future__ import annotations

from typing import TYPE_CHECKING

from phronesis.lazy import exports

if TYPE_CHECKING:
    from phronesis.learning.bayesian import BayesianStrategy, BayesianStrategyConfig
    from phronesis.learning.discounted import DiscountedBetaStrategy
    from phronesis.learning.factory import LEARNING_STRATEGIES, create_learning_strategy
    from phronesis.learning.models import FireRequest, HistoryEntry, Observation, ObservedEvent, SignalOutcome
    from phronesis.learning.module import LearningModule
    from phronesis.learning.types import (
        SIGNAL_SOURCES,
        FeedbackSignal,
        FireRecord,
        LearningStrategy,
        SignalType,
    )

__all__ = [
    "LEARNING_STRATEGIES",
    "SIGNAL_SOURCES",
    "BayesianStrategy",
    "BayesianStrategyConfig",
    "DiscountedBetaStrategy",
    "FeedbackSignal",
    "FireRecord",
    "FireRequest",
    "HistoryEntry",
    "LearningModule",
    "LearningStrategy",
    "Observation",
    "ObservedEvent",
    "SignalOutcome",
    "SignalType",
    "create_learning_strategy",
]

__getattr__ = exports(
    __name__,
    {
        "BayesianStrategy": "phronesis.learning.bayesian",
        "BayesianStrategyConfig": "phronesis.learning.bayesian",
        "DiscountedBetaStrategy": "phronesis.learning.discounted",
        "FeedbackSignal": "phronesis.learning.types",
        "FireRecord": "phronesis.learning.types",
        "FireRequest": "phronesis.learning.models",
        "HistoryEntry": "phronesis.learning.models",
        "LEARNING_STRATEGIES": "phronesis.learning.factory",
        "LearningModule": "phronesis.learning.module",
        "LearningStrategy": "phronesis.learning.types",
        "Observation": "phronesis.learning.models",
        "ObservedEvent": "phronesis.learning.models",
        "SIGNAL_SOURCES": "phronesis.learning.types",
        "SignalOutcome": "phronesis.learning.models",
        "SignalType": "phronesis.learning.types",
        "create_learning_strategy": "phronesis.learning.factory",
    },
)
