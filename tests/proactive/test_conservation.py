"""Conservation (issue 48): every signal ends in exactly one state a user can see, with its reason.

A signal is pending (waiting for a cycle), expired (never used), or used with an outcome: sent or
folded into a message that mentions it, deferred as an insight, a duplicate of a recent message,
suppressed or opted out, below the deferred floor, spoken for by no candidate, or read as context.
Nothing is used by a message that does not mention it. Checked on random users, signals, caps,
replies and channel failures, on every database the ``database`` fixture gives.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phronesis.proactive.fates import state_of
from phronesis.proactive.models import Signal, SignalIn, UserIn, UserMessageIn
from phronesis.proactive.module import ProactiveModule
from phronesis.proactive.templates import signal_title
from phronesis.testing import FixedClock, RecordingChannel
from tests.proactive.conftest import START

TYPES = ("deadline_approaching", "bill_due", "calendar_event_approaching", "weather_alert", "package_delivery")
TITLES = ("Problem set 3", "Problem set 4", "Water bill", "Rent transfer", "Dentist appointment", "Tax form W-9")
REPLIES = ("thanks!", "stop", "not helpful", "ok", "later", "no more weather please")

SIGNALS = st.builds(
    lambda urgency, type_, title, due, ttl, context: (urgency, type_, title, due, ttl, context),
    st.integers(1, 10),
    st.sampled_from(TYPES),
    st.sampled_from(TITLES),
    st.integers(-60, 48 * 60),  # minutes from the moment it arrives
    st.integers(1, 72),  # hours until it expires
    st.sampled_from([False, False, False, True]),  # now and then background only
)
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("signals"), st.lists(SIGNALS, min_size=1, max_size=5)),
        st.tuples(st.just("cycle"), st.none()),
        st.tuples(st.just("wait"), st.integers(1, 600)),
        st.tuples(st.just("reply"), st.sampled_from(REPLIES)),
        st.tuples(st.just("outage"), st.integers(1, 6)),
    ),
    min_size=1,
    max_size=14,
)
USERS = st.sampled_from(
    [
        UserIn(),  # new
        UserIn(created_at=START - timedelta(days=40), interaction_count=150, timezone="Asia/Singapore"),
        UserIn(created_at=START - timedelta(days=200), interaction_count=900, timezone="Australia/Sydney",
               sleep_time="09:00", wake_time="17:00"),
        UserIn(created_at=START - timedelta(days=20), interaction_count=60, timezone="America/New_York"),
    ]
)  # fmt: skip


def _check(signal: Signal, now_messages: dict[str, str], insights: set[str], now: object) -> None:
    state = state_of(signal, now)  # type: ignore[arg-type]
    if signal.consumed_at is None:
        assert signal.outcome is None and state in ("pending", "expired"), signal
        return
    assert signal.outcome is not None and signal.outcome_reason, f"used without an outcome: {signal}"
    if state in ("sent", "folded"):
        message = now_messages.get(signal.outcome_ref or "")
        assert message is not None, f"sent in a message that does not exist: {signal}"
        assert signal_title(signal).lower() in message.lower(), f"{message!r} does not mention {signal.data}"
    if state == "deferred":
        assert signal.outcome_ref in insights, signal


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(user=USERS, steps=STEPS, max_candidates=st.integers(1, 4), cooldown=st.sampled_from([0, 30]))
async def test_every_signal_ends_in_one_state_with_its_reason(
    make: Callable[..., ProactiveModule],
    clock: FixedClock,
    user: UserIn,
    steps: list[tuple[str, object]],
    max_candidates: int,
    cooldown: int,
) -> None:
    channel = RecordingChannel()
    proactive = make(channel_=channel, max_candidates=max_candidates, cooldown_minutes=cooldown)
    tenant = f"t{id(steps)}-{clock.now().timestamp()}"
    await proactive.put_user(tenant, "u", user)
    added = 0
    for kind, value in steps:
        if kind == "signals":
            assert isinstance(value, list)
            batch = [
                SignalIn(
                    type=type_,
                    urgency_hint=urgency,
                    data={"title": title, "due": (clock.now() + timedelta(minutes=due)).isoformat()},
                    dedup_key=f"k{added + i}",
                    context_only=context,
                    expires_at=clock.now() + timedelta(hours=ttl),
                )
                for i, (urgency, type_, title, due, ttl, context) in enumerate(value)
            ]
            added += len(batch)
            await proactive.add_signals(tenant, "u", batch)
        elif kind == "cycle":
            await proactive.run_cycle(tenant, "u")
        elif kind == "wait":
            assert isinstance(value, int)
            clock.advance(minutes=value)
        elif kind == "reply":
            assert isinstance(value, str)
            await proactive.on_message(tenant, "u", UserMessageIn(text=value))
        else:
            assert isinstance(value, int)
            channel.failures = value
    sends = await proactive.list_feedback(tenant, user_id="u", limit=1000)
    messages = {send.id: send.message for send in sends.items}
    insights = {i.id for i in (await proactive.list_insights(tenant, "u", fresh_only=False, limit=1000)).items}
    signals = (await proactive.list_signals(tenant, "u", limit=1000)).items
    assert len(signals) == added
    for signal in signals:
        _check(signal, messages, insights, clock.now())
    clock.advance(hours=80)  # past every expiry: nothing is left pending, nothing disappeared
    later = (await proactive.list_signals(tenant, "u", limit=1000)).items
    assert all(state_of(s, clock.now()) != "pending" for s in later)
