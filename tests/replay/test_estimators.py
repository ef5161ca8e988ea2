"""The weighted estimators' invariants (``replay.estimators``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from phronesis.replay.estimators import Weighted, ips, snips

decisions = st.lists(
    st.builds(Weighted, reward=st.sampled_from([0.0, 1.0]), weight=st.sampled_from([0.0, 1.0, 2.5, 10.0])),
    min_size=1,
    max_size=60,
)


@given(decisions)
def test_an_estimate_lies_in_its_interval_within_zero_and_one(logged: list[Weighted]) -> None:
    for estimate in (snips(logged, len(logged)), ips(logged, len(logged))):
        if estimate.rate is None:
            assert estimate.interval is None and not any(d.weight for d in logged)
            continue
        assert estimate.interval is not None
        low, high = estimate.interval
        assert 0.0 <= low <= high <= 1.0
        assert low <= min(1.0, max(0.0, estimate.rate)) <= high  # IPS may exceed 1: its interval is clipped
        assert high - low > 0.0  # never a certainty from a sample


def test_one_ignored_message_is_no_certainty() -> None:
    """A trial found "0.0 % (95 % 0.0–0.0 %)" from one matching send: the interval is now Wilson's
    at one effective decision, nearly everything."""
    estimate = snips([Weighted(reward=0.0, weight=1.0), Weighted(reward=0.0, weight=0.0)], 2)
    assert estimate.rate == 0.0 and estimate.interval is not None and estimate.interval[1] > 0.7


def test_no_matching_decision_is_no_estimate() -> None:
    """Every supported decision made another choice than the replayed one: nothing to weigh."""
    logged = [Weighted(reward=0.0, weight=0.0)] * 3
    assert ips(logged, 3).rate is None and snips(logged, 3).rate is None
    assert ips(logged, 3).coverage == 1.0  # supported, but nothing matched
