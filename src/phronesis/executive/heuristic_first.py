"""``HeuristicFirstStrategy`` and ``AlwaysLLMStrategy`` (seed 000).

Heuristic-first decision flow:
1. threshold = base + personality bias ``confidence_threshold``, clamped to [0.3, 0.95];
2. best candidate's confidence ≥ threshold → HEURISTIC (its action, its confidence);
3. else an LLM is configured and the event is immediate → LLM path;
4. else REJECTED, reason ``llm_unavailable`` or ``not_immediate``.

``always_llm`` skips step 2: the seed's A/B baseline.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

from phronesis.executive.config import THRESHOLD_BOUNDS, StrategyConfig
from phronesis.executive.llm_path import decide_with_llm
from phronesis.executive.prompt_builder import PromptTemplates
from phronesis.executive.types import DecisionContext, DecisionPath, DecisionResult, HeuristicCandidate
from phronesis.llm.types import LLMProvider

__all__ = ["AlwaysLLMStrategy", "HeuristicFirstStrategy", "effective_threshold"]


def effective_threshold(base: float, context: DecisionContext) -> float:
    adjusted = base + context.personality_biases.get("confidence_threshold", 0.0)
    low, high = THRESHOLD_BOUNDS
    return max(low, min(high, adjusted))


def _new_id() -> str:
    return str(uuid.uuid4())


class HeuristicFirstStrategy:
    name = "heuristic_first"
    uses_heuristic_path = True

    def __init__(
        self,
        config: StrategyConfig | None = None,
        *,
        templates: PromptTemplates | None = None,
        rng: random.Random | None = None,
        new_id: Callable[[], str] = _new_id,
    ) -> None:
        self._config = config or StrategyConfig()
        self._templates = templates or PromptTemplates.default()
        self._rng = rng or random.Random()
        self._new_id = new_id

    @property
    def config(self) -> dict[str, Any]:
        return {
            "strategy": self.name,
            "confidence_threshold": self._config.confidence_threshold,
            "max_candidates": self._config.max_candidates,
            "llm_confidence_ceiling": self._config.llm_confidence_ceiling,
        }

    async def decide(self, context: DecisionContext, llm: LLMProvider | None) -> DecisionResult:
        threshold = effective_threshold(self._config.confidence_threshold, context)
        metadata: dict[str, object] = {"threshold": threshold, "strategy": self.name}
        best = context.candidates[0] if context.candidates else None
        if self.uses_heuristic_path and best is not None and best.confidence >= threshold:
            return self._heuristic_path(best, metadata)
        if llm is not None and context.immediate:
            return await decide_with_llm(
                context,
                llm,
                config=self._config,
                templates=self._templates,
                rng=self._rng,
                response_id=self._new_id(),
                metadata=metadata,
            )
        return DecisionResult(
            path=DecisionPath.REJECTED,
            response_text="",
            response_id=self._new_id(),
            matched_heuristic_id=None,
            predicted_success=0.0,
            prediction_confidence=0.0,
            prompt_text="",
            metadata={**metadata, "reason": "llm_unavailable" if llm is None else "not_immediate"},
        )

    def _heuristic_path(self, candidate: HeuristicCandidate, metadata: dict[str, object]) -> DecisionResult:
        return DecisionResult(
            path=DecisionPath.HEURISTIC,
            response_text=candidate.suggested_action,
            response_id=self._new_id(),
            matched_heuristic_id=candidate.heuristic_id,
            predicted_success=candidate.confidence,
            prediction_confidence=candidate.confidence,
            prompt_text="",
            metadata=metadata,
        )


class AlwaysLLMStrategy(HeuristicFirstStrategy):
    """Every immediate event goes to the LLM; candidates are context only (A/B baseline)."""

    name = "always_llm"
    uses_heuristic_path = False
