"""``create_decision_strategy``: a strategy by name (seed 000 factory; unknown names are an error)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from phronesis.exceptions import ConfigurationError
from phronesis.executive.config import StrategyConfig
from phronesis.executive.heuristic_first import AlwaysLLMStrategy, HeuristicFirstStrategy
from phronesis.executive.prompt_builder import PromptTemplates
from phronesis.executive.types import DecisionStrategy

__all__ = ["STRATEGIES", "create_decision_strategy"]

STRATEGIES: dict[str, Callable[..., DecisionStrategy]] = {
    "heuristic_first": HeuristicFirstStrategy,
    "always_llm": AlwaysLLMStrategy,
}


def create_decision_strategy(
    strategy_type: str,
    *,
    threshold: float = 0.7,
    max_candidates: int = 3,
    llm_confidence_ceiling: float = 0.8,
    templates: PromptTemplates | None = None,
    rng: random.Random | None = None,
    **kwargs: Any,
) -> DecisionStrategy:
    """Build the named strategy; an unknown name raises ``ConfigurationError`` listing the known ones."""
    factory = STRATEGIES.get(strategy_type)
    if factory is None:
        known = ", ".join(sorted(STRATEGIES))
        raise ConfigurationError(f"unknown decision strategy {strategy_type!r}; expected one of {known}")
    try:
        config = StrategyConfig(
            confidence_threshold=float(threshold),
            max_candidates=int(max_candidates),
            llm_confidence_ceiling=float(llm_confidence_ceiling),
        )
    except ValueError as exc:
        raise ConfigurationError(f"decision strategy {strategy_type!r}: {exc}") from None
    return factory(config, templates=templates, rng=rng, **kwargs)
