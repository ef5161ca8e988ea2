"""``create_decision_strategy``: a strategy by name (seed 000 factory; unknown names are an error)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

from phronesis.exceptions import ConfigurationError
from phronesis.executive.config import StrategyConfig
from phronesis.executive.heuristic_first import AlwaysLLMStrategy, BaseStrategy, HeuristicFirstStrategy
from phronesis.executive.prompt_builder import PromptTemplates
from phronesis.executive.traces import TraceStore
from phronesis.executive.types import DecisionStrategy
from phronesis.executive.urgency_tiered import UrgencyTieredStrategy

__all__ = ["STRATEGIES", "STRATEGY_NAMES", "create_decision_strategy"]

STRATEGIES: dict[str, Callable[..., BaseStrategy]] = {
    "heuristic_first": HeuristicFirstStrategy,
    "always_llm": AlwaysLLMStrategy,
    "urgency_tiered": UrgencyTieredStrategy,
}
STRATEGY_NAMES = tuple(STRATEGIES)
"""What ``executive.strategy`` takes (a tenant's choice, a replay's value)."""

_CONFIG_FIELDS = {field.name for field in dataclasses.fields(StrategyConfig)}


def create_decision_strategy(
    strategy_type: str,
    *,
    threshold: float = 0.7,
    templates: PromptTemplates | None = None,
    rng: random.Random | None = None,
    traces: TraceStore | None = None,
    **kwargs: Any,
) -> DecisionStrategy:
    """Build the named strategy. Other keyword arguments are ``StrategyConfig`` fields
    (``max_candidates``, ``llm_confidence_ceiling``, ``threshold_reduction`` …).

    An unknown name or field, or a value out of range, raises ``ConfigurationError``.
    """
    factory = STRATEGIES.get(strategy_type)
    if factory is None:
        known = ", ".join(sorted(STRATEGIES))
        raise ConfigurationError(
            f"PHRONESIS_EXECUTIVE__DECISION_STRATEGY: unknown decision strategy {strategy_type!r}; "
            f"expected one of {known}"
        )
    unknown = set(kwargs) - _CONFIG_FIELDS
    if unknown:
        raise ConfigurationError(f"decision strategy {strategy_type!r}: unknown option(s) {', '.join(sorted(unknown))}")
    try:
        config = StrategyConfig(confidence_threshold=float(threshold), **kwargs)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"decision strategy {strategy_type!r}: {exc}") from None
    strategy: DecisionStrategy = factory(config, templates=templates, rng=rng, traces=traces)
    return strategy
