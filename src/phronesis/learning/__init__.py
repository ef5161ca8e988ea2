"""The learning decision point (seed 001): feedback signals → heuristic confidence."""

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
