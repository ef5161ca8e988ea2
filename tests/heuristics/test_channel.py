"""The noisy channel's arithmetic: a prior, learned counts, and Bayes' rule for one outcome."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.heuristics.channel import DEFAULT_CHANNEL_PRIOR, OUTCOMES, Channel

PRIOR = Channel.prior(DEFAULT_CHANNEL_PRIOR, 20.0)


def test_the_prior_spreads_its_strength_over_each_column() -> None:
    assert sum(PRIOR.helped.values()) == pytest.approx(20.0)
    assert sum(PRIOR.failed.values()) == pytest.approx(20.0)
    assert PRIOR.likelihoods("implicit_undo") == pytest.approx((0.02, 0.38))


def test_bayes_rule_for_one_outcome() -> None:
    # P(helped | timeout, p=0.5) = 0.8·0.5 / (0.8·0.5 + 0.3·0.5)
    assert PRIOR.share("implicit_timeout", 0.5) == pytest.approx(0.8 / 1.1)
    assert PRIOR.share("implicit_undo", 0.5) == pytest.approx(0.02 / 0.40)


def test_learned_counts_move_the_likelihoods() -> None:
    # rated fires show that, for this tenant, silence follows failures as often as successes
    learned = PRIOR.plus([("implicit_timeout", False, 80.0), ("implicit_undo", False, -4.0)])
    helped, failed = learned.likelihoods("implicit_timeout")
    assert failed > PRIOR.likelihoods("implicit_timeout")[1]
    assert learned.share("implicit_timeout", 0.5) < PRIOR.share("implicit_timeout", 0.5)
    assert helped == pytest.approx(0.8)


@pytest.mark.parametrize(
    ("likelihoods", "strength", "message"),
    [
        ({"implicit_timeout": (0.5, 0.5), "implicit_lol": (0.5, 0.5)}, 20.0, "unknown outcome"),
        ({"implicit_timeout": (0.0, 0.5)}, 20.0, "positive sum"),
        ({"implicit_timeout": (-0.1, 0.5), "implicit_undo": (1.0, 0.5)}, 20.0, "non-negative"),
        (DEFAULT_CHANNEL_PRIOR, 0.0, "strength must be positive"),
    ],
)
def test_a_bad_prior_is_refused(likelihoods: dict[str, tuple[float, float]], strength: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Channel.prior(likelihoods, strength)


@given(
    outcome=st.sampled_from(OUTCOMES),
    low=st.floats(0.0, 1.0),
    high=st.floats(0.0, 1.0),
    counts=st.lists(st.tuples(st.sampled_from(OUTCOMES), st.booleans(), st.floats(0.0, 1000.0)), max_size=8),
)
def test_the_share_is_a_probability_that_grows_with_confidence(
    outcome: str, low: float, high: float, counts: list[tuple[str, bool, float]]
) -> None:
    channel = PRIOR.plus(counts)
    low, high = sorted((low, high))
    a, b = channel.share(outcome, low), channel.share(outcome, high)
    assert 0.0 <= a <= b <= 1.0
    # evidence for success exactly when the outcome is likelier after a success
    given_helped, given_failed = channel.likelihoods(outcome)
    middle = channel.share(outcome, 0.5)
    assert (middle > 0.5) == (given_helped > given_failed) or given_helped == pytest.approx(given_failed)
