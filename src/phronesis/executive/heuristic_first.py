"""``HeuristicFirstStrategy`` and ``AlwaysLLMStrategy`` (seed 000).

Heuristic-first decision flow:
1. threshold = base + personality bias ``confidence_threshold``, clamped to [0.3, 0.95];
2. among the candidates (conditions that match the event, most similar first), the first
   whose confidence ≥ threshold → HEURISTIC (its action, its confidence). A weaker heuristic
   that matches more closely never blocks a confident one: it is listed in the decision's
   ``passed_over`` instead (a learned heuristic at 0.3 does not block a pack one at 0.9);
3. else, with exploration on (``exploration_rate`` > 0), perhaps fire one of them anyway by
   Thompson sampling, its propensity recorded (``exploration``);
4. else an LLM is configured and the event is immediate → LLM path;
5. else REJECTED, reason ``llm_unavailable`` or ``not_immediate``.

``always_llm`` skips step 2: the seed's A/B baseline.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from phronesis import ids
from phronesis.exceptions import ConfigurationError
from phronesis.executive.config import THRESHOLD_BOUNDS, StrategyConfig
from phronesis.executive.exploration import ThompsonExploration
from phronesis.executive.llm_path import decide_with_llm
from phronesis.executive.prompt_builder import PromptTemplates
from phronesis.executive.results import fire, reject
from phronesis.executive.traces import ReasoningTrace, TraceStore
from phronesis.executive.types import DecisionContext, DecisionResult, Picked
from phronesis.llm.types import LLMProvider

__all__ = ["AlwaysLLMStrategy", "BaseStrategy", "HeuristicFirstStrategy", "biased_threshold", "effective_threshold"]


def effective_threshold(base: float, context: DecisionContext, *, reduction: float = 0.0) -> float:
    """Seed 000 F-24 (+ urgency): ``base + bias − urgency × reduction``, clamped to [0.3, 0.95];
    ``base`` is the tenant's applied value when it has one (``context.base_threshold``)."""
    if context.base_threshold is not None:
        base = context.base_threshold
    return biased_threshold(
        base, context.personality_biases.get("confidence_threshold", 0.0), context.urgency * reduction
    )


def biased_threshold(base: float, bias: float, reduction: float = 0.0) -> float:
    """``base + bias − reduction`` clamped to seed 000's safe range: also what a replay of another
    base threshold applies to each logged decision's own bias (``replay.executive``)."""
    low, high = THRESHOLD_BOUNDS
    return max(low, min(high, base + bias - reduction))


class BaseStrategy(ABC):
    """What every strategy shares: config, prompts, RNG, ids, the LLM path and trace lookup."""

    name = "base"

    def __init__(
        self,
        config: StrategyConfig | None = None,
        *,
        templates: PromptTemplates | None = None,
        rng: random.Random | None = None,
        new_id: Callable[[], str] = ids.new_id,
        traces: TraceStore | None = None,
    ) -> None:
        self._config = config or StrategyConfig()
        self._templates = templates or PromptTemplates.default()
        self._rng = rng or random.Random()
        self._new_id = new_id
        self._traces = traces

    @property
    def config(self) -> dict[str, Any]:
        return {
            "strategy": self.name,
            "confidence_threshold": self._config.confidence_threshold,
            "max_candidates": self._config.max_candidates,
            "llm_confidence_ceiling": self._config.llm_confidence_ceiling,
        }

    @abstractmethod
    def pick(self, context: DecisionContext, *, llm_available: bool) -> Picked:
        """The cheap stage: the heuristic this strategy fires without the LLM, if any."""

    async def ask(self, picked: Picked, llm: LLMProvider | None) -> DecisionResult:
        """Seed 000 steps 3–4: the LLM path when an LLM is configured and the event is immediate."""
        if llm is not None and picked.context.immediate:
            return await decide_with_llm(
                picked.context,
                llm,
                config=self._config,
                templates=self._templates,
                rng=self._rng,
                response_id=self._new_id(),
                metadata=picked.metadata,
            )
        return reject("llm_unavailable" if llm is None else "not_immediate", self._new_id(), picked.metadata)

    async def decide(self, context: DecisionContext, llm: LLMProvider | None) -> DecisionResult:
        """Seed 000 ``DecisionStrategy.decide``: ``pick``, then ``ask`` when nothing fired."""
        picked = self.pick(context, llm_available=llm is not None)
        return picked.fired if picked.fired is not None else await self.ask(picked, llm)

    async def get_trace(self, response_id: str, *, tenant: str = "default") -> ReasoningTrace | None:
        """The trace of a decision, from the durable store (seed 000; ORIGINS §1.8 bug 9)."""
        if self._traces is None:
            raise ConfigurationError(f"strategy {self.name!r} was built without a trace store")
        return await self._traces.get(tenant, response_id)


class HeuristicFirstStrategy(BaseStrategy):
    name = "heuristic_first"
    uses_heuristic_path = True

    def pick(self, context: DecisionContext, *, llm_available: bool) -> Picked:
        threshold = effective_threshold(self._config.confidence_threshold, context)
        # llm_available: where a replay of another threshold would send a decision no heuristic fires
        metadata: dict[str, Any] = {"threshold": threshold, "strategy": self.name, "llm_available": llm_available}
        if self.uses_heuristic_path:
            passed_over: list[str] = []
            for candidate in context.candidates:  # most similar first (candidates_from_memory)
                if candidate.confidence >= threshold:
                    if passed_over:
                        metadata["passed_over"] = passed_over
                    return Picked(fire(candidate, self._new_id(), metadata), context, metadata)
                passed_over.append(candidate.heuristic_id)
            explored = ThompsonExploration(self._config.exploration_rate).choose(
                context.candidates, threshold, self._rng
            )
            if explored is not None:
                chosen, record = explored
                metadata["exploration"] = record  # recorded whether it fired or not (its propensity)
                if chosen is not None:
                    return Picked(fire(chosen, self._new_id(), {**metadata, "explored": True}), context, metadata)
        return Picked(None, context, metadata)


class AlwaysLLMStrategy(HeuristicFirstStrategy):
    """Every immediate event goes to the LLM; candidates are context only (A/B baseline)."""

    name = "always_llm"
    uses_heuristic_path = False
