"""The executive decision point (seed 000): fire a learned heuristic or ask the LLM."""

from __future__ import annotations

from typing import TYPE_CHECKING

from phronesis.lazy import exports

if TYPE_CHECKING:
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

__getattr__ = exports(
    __name__,
    {
        "AlwaysLLMStrategy": "phronesis.executive.heuristic_first",
        "DecisionContext": "phronesis.executive.types",
        "DecisionPath": "phronesis.executive.types",
        "DecisionResult": "phronesis.executive.types",
        "DecisionStrategy": "phronesis.executive.types",
        "HeuristicCandidate": "phronesis.executive.types",
        "HeuristicFirstStrategy": "phronesis.executive.heuristic_first",
        "StrategyConfig": "phronesis.executive.config",
        "create_decision_strategy": "phronesis.executive.factory",
    },
)
