"""The executive decision point (seed 000): fire a learned heuristic or ask the LLM."""

from phronesis.executive.config import StrategyConfig
from phronesis.executive.factory import create_decision_strategy
from phronesis.executive.heuristic_first import AlwaysLLMStrategy, HeuristicFirstStrategy
from phronesis.executive.types import (
    DecisionContext,
    DecisionPath,
    DecisionResult,
    DecisionStrategy,
    HeuristicCandidate,
)

__all__ = [
    "AlwaysLLMStrategy",
    "DecisionContext",
    "DecisionPath",
    "DecisionResult",
    "DecisionStrategy",
    "HeuristicCandidate",
    "HeuristicFirstStrategy",
    "StrategyConfig",
    "create_decision_strategy",
]
