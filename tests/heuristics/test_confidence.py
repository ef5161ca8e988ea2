"""Beta confidence: consistent priors, GLADyS's worked numbers, bounds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.heuristics.confidence import BetaConfidence, bounded

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
weights = st.floats(min_value=0.01, max_value=10.0, allow_nan=False)


def test_gladys_bootstrapping_numbers_hold_at_the_neutral_prior() -> None:
    """ORIGINS §1.4: +0.41 → 0.585, +0.395 → 0.643, +1.0 → 0.737 from Beta(1,1)."""
    c = BetaConfidence.from_prior(0.5, 2.0)
    assert (c.alpha, c.beta) == (1.0, 1.0)
    c = c.updated(positive=True, weight=0.41)
    assert c.mean == pytest.approx(0.585, abs=1e-3)
    c = c.updated(positive=True, weight=0.395)
    assert c.mean == pytest.approx(0.643, abs=1e-3)
    c = c.updated(positive=True, weight=1.0)
    assert c.mean == pytest.approx(0.737, abs=1e-3)


def test_a_learned_heuristic_at_0_3_does_not_jump_on_its_first_update() -> None:
    """GLADyS bug 1: created at 0.3 with Beta(1,1), the first positive jumped to 0.667."""
    c = BetaConfidence.from_prior(0.3, 2.0)
    assert c.mean == pytest.approx(0.3)
    after = c.updated(positive=True, weight=1.0)
    assert after.mean == pytest.approx(1.6 / 3.0)
    assert after.mean < 0.667


@given(confidence=unit, strength=st.floats(min_value=0.1, max_value=100))
def test_the_prior_mean_is_the_initial_confidence(confidence: float, strength: float) -> None:
    c = BetaConfidence.from_prior(confidence, strength)
    assert c.alpha > 0 and c.beta > 0
    assert c.mean == pytest.approx(confidence, abs=1e-6)


@given(start=unit, steps=st.lists(st.tuples(st.booleans(), weights), max_size=50))
def test_confidence_stays_in_unit_interval_and_moves_the_right_way(
    start: float, steps: list[tuple[bool, float]]
) -> None:
    c = BetaConfidence.from_prior(start, 2.0)
    for positive, weight in steps:
        after = c.updated(positive=positive, weight=weight)
        assert 0.0 <= after.mean <= 1.0
        assert (after.mean >= c.mean) if positive else (after.mean <= c.mean)
        c = after


@given(mean=unit, floor=unit, ceiling=unit)
def test_bounded_respects_floor_and_ceiling(mean: float, floor: float, ceiling: float) -> None:
    if floor > ceiling:
        floor, ceiling = ceiling, floor
    assert floor <= bounded(mean, floor, ceiling) <= ceiling


def test_invalid_priors_are_refused() -> None:
    with pytest.raises(ValueError):
        BetaConfidence.from_prior(1.5, 2.0)
    with pytest.raises(ValueError):
        BetaConfidence.from_prior(0.5, 0.0)
