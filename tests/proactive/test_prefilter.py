"""Seed 004 §3: the pre-filter's rules, in order, each with its reason; urgent bypasses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from phronesis.proactive.prefilter import prefilter
from phronesis.proactive.settings import ProactiveSettings
from tests.proactive.conftest import NOON, signal, state

S = ProactiveSettings()
NIGHT = NOON.replace(hour=2)


def test_no_signals_and_context_only_signals_never_start_a_cycle() -> None:
    assert prefilter(state(), NOON, S).reason == "no_signals"
    assert prefilter(state(signal(9, context_only=True)), NOON, S).reason == "context_only"


def test_trust_min_urgency_drops_weak_signals() -> None:
    new_user = dict(level_days=1, interactions=0)  # min urgency 7
    assert prefilter(state(signal(6), **new_user), NOON, S).reason == "low_urgency"
    passed = prefilter(state(signal(6), signal(7, type="calendar_event"), **new_user), NOON, S)
    assert passed.passed and [s.type for s in passed.signals] == ["calendar_event"]


def test_a_type_the_user_ignores_needs_two_more_urgency() -> None:
    ignored = frozenset({"deadline_approaching"})
    assert prefilter(state(signal(6), ignored=ignored), NOON, S).reason == "low_urgency"  # needs 5 + 2
    assert prefilter(state(signal(7), ignored=ignored), NOON, S).passed


def test_quiet_hours_block_unless_urgent_and_then_only_urgent_signals_pass() -> None:
    assert prefilter(state(signal(6)), NIGHT, S).reason == "quiet_hours"
    screened = prefilter(state(signal(6), signal(8, type="exam_soon")), NIGHT, S)
    assert screened.passed and screened.urgent and [s.type for s in screened.signals] == ["exam_soon"]


def test_the_daily_cap_is_never_bypassed() -> None:
    sends = tuple(NOON - timedelta(hours=h) for h in (1, 2, 3, 4))  # established: cap 4
    assert prefilter(state(signal(10), sends=sends), NOON, S).reason == "daily_cap"


def test_cooldown_blocks_unless_urgent() -> None:
    just_now = (NOON - timedelta(minutes=29),)
    assert prefilter(state(signal(6), sends=just_now), NOON, S).reason == "cooldown"
    assert prefilter(state(signal(6), sends=(NOON - timedelta(minutes=30),)), NOON, S).passed
    assert prefilter(state(signal(9), sends=just_now), NOON, S).passed


def test_the_cap_counts_the_users_local_day_by_default_or_the_utc_day() -> None:
    # 23:30 UTC yesterday is already today in Singapore (UTC+8)
    now = datetime(2026, 3, 10, 4, 0, tzinfo=UTC)
    sends = tuple(datetime(2026, 3, 9, 23, m, tzinfo=UTC) for m in (0, 10, 20, 30))
    local = prefilter(state(signal(9), sends=sends, tz="Asia/Singapore", now=now), now, S)
    utc = prefilter(
        state(signal(9), sends=sends, tz="Asia/Singapore", now=now), now, ProactiveSettings(daily_cap_day="utc")
    )
    assert (local.reason, utc.reason) == ("daily_cap", None)


def test_expired_signals_do_not_count() -> None:
    assert prefilter(state(signal(9)), NOON + timedelta(days=2), S).reason == "no_signals"


def test_at_most_max_signals_most_urgent_first() -> None:
    many = [signal(5 + i % 5, type=f"t{i}") for i in range(15)]
    screened = prefilter(state(*many), NOON, S)
    urgencies = [s.urgency_hint for s in screened.signals]
    assert len(urgencies) == 10 and urgencies == sorted(urgencies, reverse=True)


@given(
    st.lists(st.integers(0, 40 * 60), max_size=8),
    st.lists(st.integers(1, 10), min_size=1, max_size=5),
    st.integers(0, 23),
)
def test_a_cycle_never_passes_at_or_over_the_cap(minutes_ago: list[int], urgencies: list[int], hour: int) -> None:
    now = NOON.replace(hour=hour)
    s = state(
        *(signal(u, type=f"t{i}") for i, u in enumerate(urgencies)),
        sends=tuple(now - timedelta(minutes=m) for m in minutes_ago),
        now=now,
    )
    screened = prefilter(s, now, S)
    today = sum(1 for m in minutes_ago if now - timedelta(minutes=m) >= now.replace(hour=0, minute=0))
    if today >= s.trust.policy.daily_cap:
        assert not screened.passed
    if screened.passed:
        assert all(sig.urgency_hint >= s.trust.policy.min_urgency for sig in screened.signals)
