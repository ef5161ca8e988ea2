"""Exploration (issue 21): a heuristic below the threshold can fire again by Thompson sampling,
rate-limited, with the propensity of every explored fire recorded and correct."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phronesis.executive import (
    DecisionContext,
    DecisionPath,
    HeuristicCandidate,
    HeuristicFirstStrategy,
    StrategyConfig,
)
from phronesis.executive.exploration import ThompsonExploration


def candidate(i: int, alpha: float, beta: float) -> HeuristicCandidate:
    return HeuristicCandidate(
        heuristic_id=f"h{i}",
        condition_text=f"situation {i}",
        suggested_action=f"do {i}",
        confidence=alpha / (alpha + beta),
        similarity=0.9,
        alpha=alpha,
        beta=beta,
    )


def context(*candidates: HeuristicCandidate) -> DecisionContext:
    return DecisionContext(
        event_id="e1", event_text="it is dark", event_source="home", candidates=list(candidates), immediate=True
    )


async def decide_many(rate: float, n: int, *candidates: HeuristicCandidate) -> list[dict[str, object] | None]:
    strategy = HeuristicFirstStrategy(StrategyConfig(exploration_rate=rate), rng=random.Random(7))
    out = []
    for _ in range(n):
        result = await strategy.decide(context(*candidates), None)
        out.append(result.metadata["exploration"] if result.path is DecisionPath.HEURISTIC else None)
    return out


async def test_off_by_default_a_heuristic_below_the_threshold_never_fires() -> None:
    assert all(e is None for e in await decide_many(0.0, 200, candidate(1, 1.0, 1.5)))


@pytest.mark.parametrize("rate", [1.0, 0.2])
async def test_the_recorded_propensity_is_the_frequency_of_explored_fires(rate: float) -> None:
    """Identical decisions: the share that fired matches the probability each recorded."""
    uncertain = candidate(1, 1.0, 1.5)  # little evidence: its draws often clear 0.7
    explored = await decide_many(rate, 3000, uncertain)
    fired = [e for e in explored if e is not None]
    recorded = [float(e["probability"]) for e in fired]  # type: ignore[arg-type]
    # Beta(1, 1.5): P(draw >= 0.7) = 0.3 ** 1.5 exactly; the policy fires with that times the rate
    exact = rate * 0.3**1.5
    assert sum(recorded) / len(recorded) == pytest.approx(exact, abs=0.01)
    assert len(fired) / len(explored) == pytest.approx(exact, abs=0.025)
    assert all(e["policy"] == "thompson" and float(e["sample"]) >= 0.7 for e in fired)  # type: ignore[arg-type]


async def test_a_decision_that_did_not_explore_records_that_propensity_too() -> None:
    """Offline evaluation weighs non-fires as well: their record says how likely not exploring was,
    and the same evidence always gives the same propensity."""
    strategy = HeuristicFirstStrategy(StrategyConfig(exploration_rate=0.5), rng=random.Random(1))
    records = []
    for _ in range(400):
        result = await strategy.decide(context(candidate(1, 1.0, 1.5)), None)
        records.append((result.path, result.metadata["exploration"]))
    fired = {e["probability"] for path, e in records if path is DecisionPath.HEURISTIC}
    not_fired = {e["probability"] for path, e in records if path is DecisionPath.REJECTED}
    assert len(fired) == 1 and len(not_fired) == 1  # deterministic for one posterior
    assert next(iter(fired)) + next(iter(not_fired)) == pytest.approx(1.0)  # one candidate: the two outcomes
    assert all(e["explored"] is (path is DecisionPath.HEURISTIC) for path, e in records)


async def test_a_heuristic_with_much_evidence_against_it_is_almost_never_explored() -> None:
    explored = await decide_many(1.0, 500, candidate(1, 2.0, 60.0))
    assert sum(e is not None for e in explored) == 0


async def test_the_better_posterior_is_explored_more_often() -> None:
    strategy = HeuristicFirstStrategy(StrategyConfig(exploration_rate=1.0), rng=random.Random(3))
    fired: dict[str, int] = {}
    for _ in range(2000):
        result = await strategy.decide(context(candidate(1, 3.0, 3.0), candidate(2, 1.0, 4.0)), None)
        if result.matched_heuristic_id is not None:
            fired[result.matched_heuristic_id] = fired.get(result.matched_heuristic_id, 0) + 1
    assert fired.get("h1", 0) > 3 * fired.get("h2", 0) > 0  # both below 0.7 on average; h1 far likelier


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0.05, 20.0), st.floats(0.05, 20.0)), min_size=1, max_size=5),
    st.floats(0.3, 0.95),
    st.integers(0, 2**32),
)
def test_a_propensity_is_a_probability_and_only_a_clearing_draw_fires(
    evidence: list[tuple[float, float]], threshold: float, seed: int
) -> None:
    candidates = [candidate(i, a, b) for i, (a, b) in enumerate(evidence)]
    outcome = ThompsonExploration(1.0).choose(candidates, threshold, random.Random(seed))
    assert outcome is not None
    chosen, record = outcome
    assert 0.0 <= float(record["probability"]) <= 1.0 and record["explored"] is (chosen is not None)
    if chosen is not None:
        assert float(record["probability"]) > 0.0 and float(record["sample"]) >= threshold


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0.05, 20.0), st.floats(0.05, 20.0)), min_size=1, max_size=5),
    st.floats(0.3, 0.95),
    st.floats(0.01, 1.0),
    st.integers(0, 2**32),
)
def test_every_choices_propensity_is_recorded_and_they_sum_to_one(
    evidence: list[tuple[float, float]], threshold: float, rate: float, seed: int
) -> None:
    """What a replay of another threshold weights by (issue 25): each candidate's chance and the
    chance of not exploring, a distribution; what happened is one of them."""
    candidates = [candidate(i, a, b) for i, (a, b) in enumerate(evidence)]
    outcome = ThompsonExploration(rate).choose(candidates, threshold, random.Random(seed))
    assert outcome is not None
    chosen, record = outcome
    chances: dict[str, float] = record["chances"]
    assert set(chances) == {c.heuristic_id for c in candidates}
    assert sum(chances.values()) + record["stay"] == pytest.approx(1.0)
    taken = record["stay"] if chosen is None else chances[chosen.heuristic_id]
    assert taken == pytest.approx(record["probability"])
