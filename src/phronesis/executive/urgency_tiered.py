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

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from phronesis.executive.config import StrategyConfig
from phronesis.executive.heuristic_first import BaseStrategy, biased_threshold
from phronesis.executive.results import fire
from phronesis.executive.types import DecisionContext, HeuristicCandidate, Picked
from phronesis.heuristics.ranking import rank_similarity_dominant

__all__ = ["CUTOFFS", "Cutoffs", "Selection", "UrgencyTieredStrategy", "select", "urgency_tier"]

CUTOFFS = ("threshold_reduction", "immediate_min", "soon_min", "reasonable_similarity", "high_similarity")
"""The cut-offs a tenant may tune (``executive.urgency.<name>``) and a replay varies."""


@dataclass(frozen=True, slots=True)
class Cutoffs:
    """The urgency design's numbers: the configured ones, or a tenant's own over them."""

    threshold_reduction: float = 0.3
    immediate_min: float = 0.7
    soon_min: float = 0.3
    reasonable_similarity: float = 0.7
    high_similarity: float = 0.85
    tie_epsilon: float = 0.02

    @classmethod
    def of(cls, config: StrategyConfig, tuned: Mapping[str, float] | None = None) -> Cutoffs:
        tuned = tuned or {}
        return cls(
            threshold_reduction=tuned.get("threshold_reduction", config.threshold_reduction),
            immediate_min=tuned.get("immediate_min", config.immediate_min_urgency),
            soon_min=tuned.get("soon_min", config.soon_min_urgency),
            reasonable_similarity=tuned.get("reasonable_similarity", config.reasonable_similarity),
            high_similarity=tuned.get("high_similarity", config.high_similarity),
            tie_epsilon=config.tie_epsilon,
        )

    def replace(self, name: str, value: float) -> Cutoffs:
        return dataclasses.replace(self, **{name: value})

    def info(self) -> dict[str, float]:
        return dataclasses.asdict(self)


def _similarity(candidate: HeuristicCandidate) -> float:
    return 1.0 if candidate.similarity is None else candidate.similarity


def urgency_tier(urgency: float, *, immediate_min: float, soon_min: float) -> str:
    if urgency >= immediate_min:
        return "immediate"
    return "soon" if urgency >= soon_min else "not_urgent"


@dataclass(frozen=True, slots=True)
class Selection:
    """What the tiers make of one event's candidates, before any draw."""

    tier: str
    threshold: float
    ranked: list[HeuristicCandidate]
    reasonable: list[HeuristicCandidate]
    chances: dict[str, float] = field(default_factory=dict)
    """Each heuristic's chance to fire (the soon tier draws; the others fire one surely); empty:
    none fires and the decision goes on to the LLM or is rejected."""
    degraded: bool = False
    high_matches: int | None = None


def select(
    candidates: Sequence[HeuristicCandidate],
    *,
    base: float,
    bias: float,
    urgency: float,
    cutoffs: Cutoffs,
    llm_available: bool,
) -> Selection:
    """Seed 000's urgency tiers as a pure function: the strategy decides with it, and a replay of
    another cut-off re-decides a logged event with it (``replay.urgency``)."""
    threshold = biased_threshold(base, bias, urgency * cutoffs.threshold_reduction)
    tier = urgency_tier(urgency, immediate_min=cutoffs.immediate_min, soon_min=cutoffs.soon_min)
    ranked = rank_similarity_dominant(
        candidates, similarity=_similarity, confidence=lambda x: x.confidence, epsilon=cutoffs.tie_epsilon
    )
    eligible = [x for x in ranked if x.confidence >= threshold]
    reasonable = [x for x in eligible if _similarity(x) >= cutoffs.reasonable_similarity]
    # one Selection built per call: a replay runs this for every logged event and value
    if tier == "immediate":
        return Selection(tier, threshold, ranked, reasonable, {reasonable[0].heuristic_id: 1.0} if reasonable else {})
    if tier == "soon":
        return Selection(tier, threshold, ranked, reasonable, _weighted(reasonable))
    high = [x for x in reasonable if _similarity(x) >= cutoffs.high_similarity]
    if len(high) == 1:
        return Selection(tier, threshold, ranked, reasonable, {high[0].heuristic_id: 1.0})
    if not llm_available and reasonable:
        return Selection(tier, threshold, ranked, reasonable, {reasonable[0].heuristic_id: 1.0}, degraded=True)
    return Selection(tier, threshold, ranked, reasonable, high_matches=len(high))


def _weights(pool: Sequence[HeuristicCandidate]) -> list[float]:
    return [max(_similarity(x), 0.0) * x.confidence for x in pool]


def _weighted(pool: Sequence[HeuristicCandidate]) -> dict[str, float]:
    """The soon tier's chances: by similarity × confidence; all on the first when none weighs."""
    if not pool:
        return {}
    weights = _weights(pool)
    total = sum(weights)
    if total <= 0.0:
        return {pool[0].heuristic_id: 1.0}
    chances: dict[str, float] = {}
    for x, weight in zip(pool, weights, strict=True):
        chances[x.heuristic_id] = chances.get(x.heuristic_id, 0.0) + weight / total
    return chances


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

    def pick(self, context: DecisionContext, *, llm_available: bool) -> Picked:
        cutoffs = Cutoffs.of(self._config, context.urgency_cutoffs)
        base = self._config.confidence_threshold if context.base_threshold is None else context.base_threshold
        picked = select(
            context.candidates,
            base=base,
            bias=context.personality_biases.get("confidence_threshold", 0.0),
            urgency=context.urgency,
            cutoffs=cutoffs,
            llm_available=llm_available,
        )
        # the cut-offs and chances: what a replay of another cut-off re-decides from
        metadata: dict[str, Any] = {
            "strategy": self.name,
            "threshold": picked.threshold,
            "urgency": context.urgency,
            "tier": picked.tier,
            "eligible_ids": [x.heuristic_id for x in picked.reasonable],
            "cutoffs": cutoffs.info(),
            "chances": picked.chances,
            "llm_available": llm_available,
        }
        if picked.degraded:
            metadata["degraded"] = "llm_unavailable"
        if picked.high_matches is not None:
            metadata["high_matches"] = picked.high_matches
        chosen: HeuristicCandidate | None = None
        if picked.tier == "soon":
            chosen = self._weighted_choice(picked.reasonable)
        elif picked.chances:
            (heuristic_id,) = picked.chances
            chosen = next(x for x in picked.reasonable if x.heuristic_id == heuristic_id)
        if chosen is not None:
            return Picked(fire(chosen, self._new_id(), metadata), context, metadata)
        # The LLM sees the candidates in similarity-dominant order (best first), as the seed's contract says.
        return Picked(None, context.model_copy(update={"candidates": picked.ranked}), metadata)

    def _weighted_choice(self, pool: list[HeuristicCandidate]) -> HeuristicCandidate | None:
        if not pool:
            return None
        weights = _weights(pool)
        if sum(weights) <= 0.0:
            return pool[0]
        return self._rng.choices(pool, weights=weights, k=1)[0]
