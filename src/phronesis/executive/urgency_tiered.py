"""``UrgencyTieredStrategy``: the seed's planned urgency-modulated threshold (seed 000, Selection Strategy).

``effective_threshold = base − urgency × reduction`` (plus personality bias, clamped to
[0.3, 0.95]); candidates are ranked similarity-dominant with confidence as the tiebreak,
and a candidate is *eligible* when its confidence clears the effective threshold. Then
by tier:

- immediate (urgency ≥ 0.7): fire the best eligible candidate that is a reasonable match
  (similarity ≥ 0.7) — speed over quality;
- soon (≥ 0.3): pick among the eligible reasonable matches at random, weighted by
  similarity × confidence (the injectable RNG makes it reproducible);
- not urgent: fire only when exactly one eligible candidate is a high match (≥ 0.85);
  otherwise prefer the LLM. With no LLM configured the tier degrades to the best eligible
  reasonable match, so the no-LLM deployment still answers (recorded as ``degraded``).

A candidate passed without a similarity (the caller chose it) counts as a full match.
"""

from __future__ import annotations

from typing import Any

from phronesis.executive.heuristic_first import BaseStrategy, effective_threshold
from phronesis.executive.results import fire
from phronesis.executive.types import DecisionContext, DecisionResult, HeuristicCandidate
from phronesis.heuristics.ranking import rank_similarity_dominant
from phronesis.llm.types import LLMProvider

__all__ = ["UrgencyTieredStrategy", "urgency_tier"]


def _similarity(candidate: HeuristicCandidate) -> float:
    return 1.0 if candidate.similarity is None else candidate.similarity


def urgency_tier(urgency: float, *, immediate_min: float, soon_min: float) -> str:
    if urgency >= immediate_min:
        return "immediate"
    return "soon" if urgency >= soon_min else "not_urgent"


class UrgencyTieredStrategy(BaseStrategy):
    name = "urgency_tiered"

    @property
    def config(self) -> dict[str, Any]:
        c = self._config
        return {
            **super().config,
            "threshold_reduction": c.threshold_reduction,
            "immediate_min_urgency": c.immediate_min_urgency,
            "soon_min_urgency": c.soon_min_urgency,
            "reasonable_similarity": c.reasonable_similarity,
            "high_similarity": c.high_similarity,
        }

    async def decide(self, context: DecisionContext, llm: LLMProvider | None) -> DecisionResult:
        c = self._config
        threshold = effective_threshold(c.confidence_threshold, context, reduction=c.threshold_reduction)
        tier = urgency_tier(context.urgency, immediate_min=c.immediate_min_urgency, soon_min=c.soon_min_urgency)
        ranked = rank_similarity_dominant(
            context.candidates, similarity=_similarity, confidence=lambda x: x.confidence, epsilon=c.tie_epsilon
        )
        eligible = [x for x in ranked if x.confidence >= threshold]
        reasonable = [x for x in eligible if _similarity(x) >= c.reasonable_similarity]
        metadata: dict[str, Any] = {
            "strategy": self.name,
            "threshold": threshold,
            "urgency": context.urgency,
            "tier": tier,
            "eligible_ids": [x.heuristic_id for x in reasonable],
        }
        chosen: HeuristicCandidate | None = None
        if tier == "immediate":
            chosen = reasonable[0] if reasonable else None
        elif tier == "soon":
            chosen = self._weighted_choice(reasonable)
        else:
            high = [x for x in reasonable if _similarity(x) >= c.high_similarity]
            if len(high) == 1:
                chosen = high[0]
            elif llm is None and reasonable:
                chosen = reasonable[0]
                metadata["degraded"] = "llm_unavailable"
            else:
                metadata["high_matches"] = len(high)
        if chosen is not None:
            return fire(chosen, self._new_id(), metadata)
        # The LLM sees the candidates in similarity-dominant order (best first), as the seed's contract says.
        return await self._llm_or_reject(context.model_copy(update={"candidates": ranked}), llm, metadata)

    def _weighted_choice(self, pool: list[HeuristicCandidate]) -> HeuristicCandidate | None:
        if not pool:
            return None
        weights = [max(_similarity(x), 0.0) * x.confidence for x in pool]
        if sum(weights) <= 0.0:
            return pool[0]
        return self._rng.choices(pool, weights=weights, k=1)[0]
