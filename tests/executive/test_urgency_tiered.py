"""urgency_tiered: the seed's urgency-modulated threshold, its three tiers and similarity-dominant ranking."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.executive import DecisionContext, DecisionPath, HeuristicCandidate, StrategyConfig
from phronesis.executive.config import THRESHOLD_BOUNDS
from phronesis.executive.heuristic_first import effective_threshold
from phronesis.executive.urgency_tiered import UrgencyTieredStrategy, urgency_tier
from phronesis.testing import ScriptedLLM
from tests.executive.conftest import answering


def candidate(name: str, confidence: float, similarity: float) -> HeuristicCandidate:
    return HeuristicCandidate(
        heuristic_id=name,
        condition_text=f"condition {name}",
        suggested_action=f"action {name}",
        confidence=confidence,
        similarity=similarity,
    )


def context(urgency: float, *candidates: HeuristicCandidate) -> DecisionContext:
    return DecisionContext(event_id="e", event_text="event", candidates=list(candidates), urgency=urgency)


def strategy(seed: int = 0) -> UrgencyTieredStrategy:
    return UrgencyTieredStrategy(StrategyConfig(), rng=random.Random(seed))


def test_urgency_lowers_the_threshold() -> None:
    assert effective_threshold(0.7, context(0.0), reduction=0.3) == pytest.approx(0.7)
    assert effective_threshold(0.7, context(1.0), reduction=0.3) == pytest.approx(0.4)


@given(
    urgency=st.floats(0, 1),
    bias=st.floats(-1, 1),
    base=st.floats(0, 1),
    reduction=st.floats(0, 1),
)
def test_the_effective_threshold_stays_in_the_safe_range(
    urgency: float, bias: float, base: float, reduction: float
) -> None:
    ctx = DecisionContext(
        event_id="e", event_text="t", urgency=urgency, personality_biases={"confidence_threshold": bias}
    )
    low, high = THRESHOLD_BOUNDS
    assert low <= effective_threshold(base, ctx, reduction=reduction) <= high


def test_tiers() -> None:
    assert [urgency_tier(u, immediate_min=0.7, soon_min=0.3) for u in (0.9, 0.7, 0.5, 0.3, 0.1)] == [
        "immediate",
        "immediate",
        "soon",
        "soon",
        "not_urgent",
    ]


async def test_immediate_fires_the_best_reasonable_match_even_at_low_confidence() -> None:
    # 0.45 confidence clears 0.7 − 0.9 × 0.3 = 0.43; similarity dominates: b (0.9) beats a (0.75)
    result = await strategy().decide(context(0.9, candidate("a", 0.9, 0.75), candidate("b", 0.45, 0.9)), None)
    assert result.path is DecisionPath.HEURISTIC and result.matched_heuristic_id == "b"
    assert result.metadata["tier"] == "immediate"


async def test_similarity_ties_are_broken_by_confidence() -> None:
    result = await strategy().decide(context(0.9, candidate("a", 0.6, 0.90), candidate("b", 0.9, 0.89)), None)
    assert result.matched_heuristic_id == "b"


async def test_soon_picks_among_eligible_matches_weighted_by_similarity_times_confidence() -> None:
    pool = (candidate("a", 0.9, 0.9), candidate("b", 0.6, 0.8), candidate("c", 0.2, 0.95))
    picks = Counter()
    s = strategy(seed=7)
    for _ in range(400):
        picks[(await s.decide(context(0.5, *pool), None)).matched_heuristic_id] += 1
    assert set(picks) == {"a", "b"}  # c is below the threshold 0.55
    assert picks["a"] > picks["b"]


async def test_not_urgent_fires_only_a_single_high_match() -> None:
    llm = answering("think first")
    single = await strategy().decide(context(0.0, candidate("a", 0.9, 0.95), candidate("b", 0.9, 0.75)), llm)
    assert single.path is DecisionPath.HEURISTIC and single.matched_heuristic_id == "a"

    ambiguous = await strategy().decide(context(0.0, candidate("a", 0.9, 0.95), candidate("b", 0.9, 0.9)), llm)
    assert ambiguous.path is DecisionPath.LLM and ambiguous.metadata["high_matches"] == 2

    weak = await strategy().decide(context(0.0, candidate("a", 0.9, 0.8)), llm)
    assert weak.path is DecisionPath.LLM


async def test_not_urgent_without_an_llm_degrades_to_the_best_match() -> None:
    result = await strategy().decide(context(0.0, candidate("a", 0.9, 0.95), candidate("b", 0.9, 0.9)), None)
    assert result.path is DecisionPath.HEURISTIC and result.metadata["degraded"] == "llm_unavailable"


async def test_nothing_eligible_goes_to_the_llm_with_candidates_ranked() -> None:
    llm = ScriptedLLM(["answer", '{"success": 0.5, "confidence": 0.5}'])
    result = await strategy().decide(context(0.9, candidate("a", 0.1, 0.8), candidate("b", 0.1, 0.9)), llm)
    assert result.path is DecisionPath.LLM and result.matched_heuristic_id == "b"
