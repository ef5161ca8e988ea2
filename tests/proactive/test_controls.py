"""Issue 24, item 9: users and product teams can stop proactive messages, and replies are read
for what they ask. Every test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.proactive.controls import PauseIn
from phronesis.proactive.models import MuteIn, OptOutIn, PreviewIn, SignalIn, UserIn, UserMessageIn
from phronesis.proactive.module import ProactiveModule
from phronesis.testing import FixedClock, RecordingChannel
from tests.proactive.conftest import AWAKE, START, deadline

DEEP = UserIn(created_at=START - timedelta(days=200), interaction_count=500, sleep_time="00:00", wake_time="00:00")
"""A deep-trust user with no quiet hours: a high daily cap, every cycle may send."""


def habit(key: str = "gym") -> SignalIn:
    return SignalIn(type="habit_streak", urgency_hint=9, data={"title": "Gym streak"}, dedup_key=key)


async def test_unsubscribe_with_nothing_pending_opts_the_user_out_until_they_opt_in(
    proactive: ProactiveModule, channel: RecordingChannel
) -> None:
    await proactive.put_user("t", "ana", AWAKE)
    reply = await proactive.on_message("t", "ana", UserMessageIn(text="unsubscribe"))
    assert (reply.intent, reply.feedback) == ("opt_out", [])
    assert reply.opted_out is not None and reply.opted_out.all
    assert (await proactive.user("t", "ana")).opted_out
    await proactive.add_signals("t", "ana", [deadline(10)])  # even an urgent one
    result = await proactive.run_cycle("t", "ana")
    assert (result.decision, result.reason) == ("silent", "opted_out") and channel.sent == []
    assert len((await proactive.list_signals("t", "ana", pending=True)).items) == 1  # kept, not consumed
    profile = await proactive.opt_in("t", "ana", OptOutIn())
    assert not profile.opted_out
    assert (await proactive.run_cycle("t", "ana")).decision == "sent"


async def test_stop_sending_me_these_switches_off_the_answered_signal_type_only(
    proactive: ProactiveModule, channel: RecordingChannel, clock: FixedClock
) -> None:
    await proactive.put_user("t", "ana", DEEP)
    await proactive.add_signals("t", "ana", [deadline(9)])
    assert (await proactive.run_cycle("t", "ana")).category == "deadline_warning"
    clock.advance(minutes=5)
    reply = await proactive.on_message("t", "ana", UserMessageIn(text="please stop sending me these"))
    assert [f.outcome for f in reply.feedback] == ["negative"]
    # the answered message's signal type, not its whole category (issue 48)
    assert reply.opted_out is not None and (reply.opted_out.all, reply.opted_out.topics) == (
        False,
        ["deadline_approaching"],
    )
    clock.advance(minutes=40)
    await proactive.add_signals("t", "ana", [deadline(9, "exam", title="MA1521 exam")])
    assert (await proactive.run_cycle("t", "ana")).reason == "opted_out"
    await proactive.add_signals("t", "ana", [habit()])
    clock.advance(minutes=5)
    sent = await proactive.run_cycle("t", "ana")
    assert (sent.decision, sent.category) == ("sent", "habit")  # other kinds still go out
    assert [m.category for m in channel.sent] == ["deadline_warning", "habit"]


async def test_these_with_no_message_to_point_at_is_an_opt_out_of_everything(proactive: ProactiveModule) -> None:
    await proactive.put_user("t", "ana", AWAKE)
    reply = await proactive.on_message("t", "ana", UserMessageIn(text="no more of these please"))
    assert reply.opted_out is not None and reply.opted_out.all and reply.intent == "opt_out"


async def test_not_now_is_an_answer_and_a_reply_at_90_minutes_is_a_late_engagement(
    proactive: ProactiveModule, clock: FixedClock
) -> None:
    await proactive.put_user("t", "ana", DEEP)
    await proactive.add_signals("t", "ana", [deadline(9)])
    await proactive.run_cycle("t", "ana")
    clock.advance(minutes=3)
    reply = await proactive.on_message("t", "ana", UserMessageIn(text="not now, thanks! I'll do it tonight"))
    assert (reply.intent, [f.outcome for f in reply.feedback]) == ("reply", ["engaged"])
    await proactive.add_signals("t", "ana", [deadline(9, "quiz", title="Quiz 3")])
    clock.advance(minutes=10)
    await proactive.run_cycle("t", "ana")
    clock.advance(minutes=90)  # past the 60-minute window, before the 180-minute timeout
    reply = await proactive.on_message("t", "ana", UserMessageIn(text="done, thanks"))
    assert [(f.outcome, f.response_latency_seconds) for f in reply.feedback] == [("engaged", 5400.0)]
    clock.advance(hours=4)
    assert (await proactive.tick("t")).feedback_expired == 0  # nothing left for the sweep to call ignored
    summary = await proactive.feedback_summary("t", "ana")
    assert (summary.engaged, summary.ignored, summary.late_replies) == (2, 0, 1)


async def test_a_mute_silences_even_urgent_messages_until_it_ends(
    proactive: ProactiveModule, clock: FixedClock
) -> None:
    await proactive.put_user("t", "ana", AWAKE)
    profile = await proactive.mute("t", "ana", MuteIn(minutes=60))
    assert profile.muted_until == START + timedelta(minutes=60)
    await proactive.add_signals("t", "ana", [deadline(10)])
    assert (await proactive.run_cycle("t", "ana")).reason == "muted"
    clock.advance(minutes=61)
    assert (await proactive.user("t", "ana")).muted_until is None  # issue 52: an ended mute is not shown
    assert (await proactive.run_cycle("t", "ana")).decision == "sent"
    await proactive.mute("t", "ana", MuteIn(until=START + timedelta(days=1)))
    assert (await proactive.unmute("t", "ana")).muted_until is None


async def test_the_tenant_pause_is_a_kill_switch_for_that_tenant_only(
    proactive: ProactiveModule, channel: RecordingChannel
) -> None:
    for tenant in ("t", "other"):
        await proactive.put_user(tenant, "ana", AWAKE)
        await proactive.add_signals(tenant, "ana", [deadline(10)])
    state = await proactive.set_pause("t", PauseIn(paused=True, reason="bad template"))
    assert (state.paused, state.reason) == (True, "bad template")
    assert (await proactive.tick("t")).reasons == {"paused": 1}
    assert (await proactive.tick("other")).sent == 1
    assert (await proactive.pause("t")).paused and not (await proactive.pause("other")).paused
    await proactive.set_pause("t", PauseIn(paused=False))
    assert (await proactive.tick("t")).sent == 1
    assert len(channel.sent) == 2


async def test_controls_of_an_unknown_user_are_not_found(proactive: ProactiveModule) -> None:
    with pytest.raises(NotFoundError):
        await proactive.opt_out("t", "nobody", OptOutIn())
    with pytest.raises(NotFoundError):
        await proactive.mute("t", "nobody", MuteIn(minutes=5))


@pytest.mark.parametrize("control", ["opt_out", "opt_out_category", "mute", "pause", "suppressed"])
async def test_a_control_that_lands_while_a_cycle_decides_stops_its_send(
    make: Callable[..., ProactiveModule],
    channel: RecordingChannel,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
    control: str,
) -> None:
    """The cycle screened the user, and is choosing its message, when the user opts out (or is
    muted, or the tenant pauses, or a third negative reply suppresses the category): the send
    must not go out. Each case fails with the re-check at commit removed."""
    proactive = make(cooldown_minutes=0, suppress_after_negatives=3)
    await proactive.put_user("t", "ana", DEEP)
    if control == "suppressed":  # two negatives already; the third arrives mid-cycle
        for n in range(3):
            await proactive.add_signals("t", "ana", [deadline(9, f"d{n}", title=f"Essay {n}")])
            assert (await proactive.run_cycle("t", "ana")).decision == "sent"
            clock.advance(minutes=6)
            if n < 2:
                await proactive.on_message("t", "ana", UserMessageIn(text="not helpful"))
    # an inferred mute never holds back an urgent message (issue 48): the suppressed case's is not urgent
    urgency = 7 if control == "suppressed" else 9
    await proactive.add_signals("t", "ana", [deadline(urgency, "exam", title="MA1521 exam")])
    runner = proactive.ticker._runner
    check = runner.check  # the cycle's check stage: after its candidates, before its commit

    async def held(*args: Any) -> Any:
        checked = await check(*args)
        if control == "opt_out":
            await proactive.on_message("t", "ana", UserMessageIn(text="STOP"))
        elif control == "opt_out_category":
            await proactive.opt_out("t", "ana", OptOutIn(categories=["deadline_warning"]))
        elif control == "mute":
            await proactive.mute("t", "ana", MuteIn(minutes=30))
        elif control == "pause":
            await proactive.set_pause("t", PauseIn(paused=True))
        else:
            await proactive.on_message("t", "ana", UserMessageIn(text="not helpful"))
        return checked

    monkeypatch.setattr(runner, "check", held)
    before = len(channel.sent)
    expected = {"opt_out_category": "opted_out", "opt_out": "opted_out", "pause": "paused", "mute": "muted"}.get(
        control, control
    )
    result = await asyncio.wait_for(proactive.run_cycle("t", "ana"), 30)
    assert (result.decision, result.reason) == ("silent", expected), result
    assert len(channel.sent) == before
    assert [s.data["title"] for s in (await proactive.list_signals("t", "ana", pending=True)).items] == ["MA1521 exam"]


async def test_what_a_users_trial_found(proactive: ProactiveModule, clock: FixedClock) -> None:
    """A fresh-clone trial: a mute in the past was accepted and shown for ever; opting in to one
    category while opted out of everything did nothing; opt-outs by hand were not counted."""
    await proactive.put_user("t", "ana", AWAKE)
    with pytest.raises(InvalidInputError) as refused:
        await proactive.mute("t", "ana", MuteIn(until=START - timedelta(minutes=1)))
    assert refused.value.field == "until"
    await proactive.opt_out("t", "ana", OptOutIn())
    profile = await proactive.opt_in("t", "ana", OptOutIn(categories=["wellbeing"]))
    assert not profile.opted_out and "wellbeing" not in profile.opted_out_categories
    assert "deadline_warning" in profile.opted_out_categories  # the rest stay off
    await proactive.opt_out("t", "ana", OptOutIn(categories=["habit"]))
    day = START.date().isoformat()
    assert {k: v for k, v in (await proactive.stats("t"))[day].items() if k.startswith("opt_out")} == {
        "opt_out:all": 1,
        "opt_out:category": 1,
    }
    # a later trial: opt-ins and mutes by hand were not counted either
    await proactive.opt_in("t", "ana", OptOutIn())
    await proactive.mute("t", "ana", MuteIn(minutes=30))
    counted = (await proactive.stats("t"))[day]
    assert (counted["opt_in:category"], counted["opt_in:all"], counted["mute:all"]) == (1, 1, 1)
    with pytest.raises(ValidationError):
        UserMessageIn()  # neither text nor a button: not a reply
    with pytest.raises(ValidationError):
        PauseIn.model_validate({"paused": "yes"})


async def test_a_preview_sees_what_the_cycle_would(proactive: ProactiveModule, clock: FixedClock) -> None:
    """The trial's previews said "would send" in a slot whose message was sent, counted a send
    made after the preview's time, scored a signal stored after it, and said 0 sent today when
    they stopped early."""
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.add_signals("t", "ana", [deadline(9)])
    assert (await proactive.run_cycle("t", "ana")).decision == "sent"
    clock.advance(minutes=1)
    await proactive.add_signals("t", "ana", [deadline(9, "quiz", title="Quiz 2")])
    same_slot = await proactive.preview("t", PreviewIn(user_id="ana", llm=False))
    assert (same_slot.decision, same_slot.reason) == ("silent", "already_sent")
    assert (await proactive.run_cycle("t", "ana")).reason == "already_sent"
    before = await proactive.preview("t", PreviewIn(user_id="ana", at=START - timedelta(hours=1)))
    # the noon send had not happened, nor had the quiz been heard of
    assert (before.decision, before.reason, before.sends_today) == ("silent", "no_signals", 0)
    between = await proactive.preview("t", PreviewIn(user_id="ana", at=START + timedelta(seconds=30), llm=False))
    assert (between.reason, between.sends_today) == ("no_signals", 1)  # sent at noon; the quiz came at 12:01
    next_slot = await proactive.preview("t", PreviewIn(user_id="ana", at=START + timedelta(minutes=6), llm=False))
    assert next_slot.decision == "would_send" and [s.data["title"] for s in next_slot.signals] == ["Quiz 2"]
    await proactive.set_pause("t", PauseIn(paused=True))
    paused = await proactive.preview("t", PreviewIn(user_id="ana"))
    assert (paused.reason, paused.sends_today) == ("paused", 1)


def weather(key: str, urgency: int = 9) -> SignalIn:
    return SignalIn(type="weather_alert", urgency_hint=urgency, data={"title": f"Storm {key}"}, dedup_key=key)


async def test_a_reply_stops_and_restarts_only_what_it_names(
    proactive: ProactiveModule, channel: RecordingChannel, clock: FixedClock
) -> None:
    """Issue 48: "unsubscribe from weather" opted the user out of everything, and "don't stop
    reminding me about deadlines" did not opt back in. Now the first stops weather alerts (urgent
    ones too: the user said so) and nothing else; the second turns deadlines back on."""
    await proactive.put_user("t", "ana", DEEP)
    await proactive.add_signals("t", "ana", [weather("w1")])
    assert (await proactive.run_cycle("t", "ana")).decision == "sent"
    clock.advance(minutes=5)
    reply = await proactive.on_message("t", "ana", UserMessageIn(text="unsubscribe from weather"))
    assert reply.intent == "opt_out_topic"
    assert reply.opted_out is not None and (reply.opted_out.all, reply.opted_out.topics) == (False, ["weather"])
    profile = await proactive.user("t", "ana")
    assert not profile.opted_out and profile.opted_out_topics == {"weather": None}
    clock.advance(minutes=40)
    await proactive.add_signals("t", "ana", [weather("w2", urgency=10)])
    assert (await proactive.run_cycle("t", "ana")).reason == "opted_out"
    await proactive.add_signals("t", "ana", [deadline(9)])
    clock.advance(minutes=5)
    assert (await proactive.run_cycle("t", "ana")).category == "deadline_warning"  # deadlines still go out
    clock.advance(minutes=5)
    stop = await proactive.on_message("t", "ana", UserMessageIn(text="stop the deadline reminders"))
    assert stop.opted_out is not None and stop.opted_out.topics == ["deadline"]
    clock.advance(minutes=40)
    await proactive.add_signals("t", "ana", [deadline(9, "exam", title="MA1521 exam")])
    assert (await proactive.run_cycle("t", "ana")).reason == "opted_out"
    back = await proactive.on_message("t", "ana", UserMessageIn(text="don't stop reminding me about deadlines"))
    assert back.intent == "opt_in" and back.opted_in is not None and back.opted_in.topics == ["deadline"]
    assert (await proactive.user("t", "ana")).opted_out_topics == {"weather": None}
    clock.advance(minutes=5)
    await proactive.add_signals("t", "ana", [deadline(9, "essay", title="Essay")])
    assert (await proactive.run_cycle("t", "ana")).decision == "sent"
    kinds = [e.kind for e in (await proactive.timeline("t", "ana")).events]
    assert "opt_out" in kinds and "opt_in" in kinds


async def test_a_muted_topic_comes_back_when_the_mute_ends(proactive: ProactiveModule, clock: FixedClock) -> None:
    await proactive.put_user("t", "ana", DEEP)
    reply = await proactive.on_message("t", "ana", UserMessageIn(text="no weather for a week"))
    assert reply.intent == "mute_topic" and reply.opted_out is not None
    assert reply.opted_out.until == START + timedelta(days=7)
    await proactive.add_signals("t", "ana", [weather("w1")])
    assert (await proactive.run_cycle("t", "ana")).reason == "opted_out"
    clock.advance(days=7, minutes=1)
    await proactive.add_signals("t", "ana", [weather("w2")])
    assert (await proactive.run_cycle("t", "ana")).decision == "sent"


async def test_the_api_stops_a_topic(proactive: ProactiveModule) -> None:
    await proactive.put_user("t", "ana", DEEP)
    profile = await proactive.opt_out("t", "ana", OptOutIn(topics=["weather_alert"]))
    assert profile.opted_out_topics == {"weather_alert": None} and not profile.opted_out
    await proactive.add_signals("t", "ana", [weather("w1")])
    assert (await proactive.run_cycle("t", "ana")).reason == "opted_out"
    profile = await proactive.opt_in("t", "ana", OptOutIn(topics=["weather"]))
    assert profile.opted_out_topics == {}
    with pytest.raises(ValidationError):
        OptOutIn(topics=["Weather!"])


async def test_a_topic_that_names_nothing_is_refused_and_nothing_changes(proactive: ProactiveModule) -> None:
    """A trial's opt-out of "xyzzy" was accepted and stopped nothing, silently. A topic names a kind
    of message, or a signal type the user has had (or one of its words), or it is refused."""
    await proactive.put_user("t", "ana", DEEP)
    with pytest.raises(InvalidInputError) as refused:
        await proactive.opt_out("t", "ana", OptOutIn(topics=["weather", "xyzzy"]))
    assert refused.value.field == "topics.1" and "xyzzy" in refused.value.message
    assert (await proactive.user("t", "ana")).opted_out_topics == {}  # nothing half-written
    standup = SignalIn(type="standup_reminder", urgency_hint=5, data={"title": "Stand-up"})
    await proactive.add_signals("t", "ana", [standup])
    profile = await proactive.opt_out("t", "ana", OptOutIn(topics=["standup"]))
    assert profile.opted_out_topics == {"standup": None}


async def test_asking_for_one_topic_again_after_stop_lets_only_that_through(
    proactive: ProactiveModule, clock: FixedClock
) -> None:
    """A trial: after "STOP", "start sending me weather again" switched the whole ``nudge``
    category back on, and a parcel notice was sent. Weather is now an exception to the stop."""
    await proactive.put_user("t", "ana", DEEP)
    assert (await proactive.on_message("t", "ana", UserMessageIn(text="STOP"))).intent == "opt_out"
    back = await proactive.on_message("t", "ana", UserMessageIn(text="start sending me weather again"))
    assert back.opted_in is not None and back.opted_in.topics == ["weather"]
    profile = await proactive.user("t", "ana")
    assert profile.opted_out and profile.opted_in_topics == ["weather"]
    parcel = SignalIn(type="parcel_delivered", urgency_hint=9, data={"title": "Parcel from Amazon"})
    await proactive.add_signals("t", "ana", [parcel])
    assert (await proactive.run_cycle("t", "ana")).reason == "opted_out"
    await proactive.add_signals("t", "ana", [weather("w1")])
    clock.advance(minutes=5)
    sent = await proactive.run_cycle("t", "ana")
    assert sent.decision == "sent" and sent.message is not None and "Storm w1" in sent.message
    everything = await proactive.on_message("t", "ana", UserMessageIn(text="opt me back in"))
    assert everything.opted_in is not None and everything.opted_in.all
    assert (await proactive.user("t", "ana")).opted_in_topics == []


async def test_a_word_from_the_answered_message_stops_its_signal_type(
    proactive: ProactiveModule, clock: FixedClock
) -> None:
    """A trial: "no more storm warnings" after a weather alert about a storm stored "storm", which
    no signal type answers to, and the next storm alert was sent. It now stops the answered type."""
    await proactive.put_user("t", "ana", DEEP)
    await proactive.add_signals("t", "ana", [weather("w1")])
    assert (await proactive.run_cycle("t", "ana")).decision == "sent"
    reply = await proactive.on_message("t", "ana", UserMessageIn(text="no more storm warnings"))
    assert reply.opted_out is not None and reply.opted_out.topics == ["weather_alert"]
    clock.advance(minutes=5)
    await proactive.add_signals("t", "ana", [weather("w2")])
    assert (await proactive.run_cycle("t", "ana")).reason == "opted_out"


async def test_no_messages_today_lasts_until_the_users_midnight(proactive: ProactiveModule) -> None:
    """A trial: "no messages today" at 15:35 muted for 24 hours, into the next day."""
    await proactive.put_user("t", "ana", DEEP.model_copy(update={"timezone": "Asia/Singapore"}))
    reply = await proactive.on_message("t", "ana", UserMessageIn(text="no messages today please"))
    assert reply.intent == "mute" and reply.opted_out is not None
    # START is 12:00 UTC, 20:00 in Singapore: the mute ends at midnight there, 16:00 UTC
    assert reply.opted_out.until == START.replace(hour=16)
    assert (await proactive.user("t", "ana")).muted_until == START.replace(hour=16)


@pytest.mark.parametrize(
    ("text", "about_weather", "label"),
    [
        ("unsubscribe from weather", False, "pending"),
        ("unsubscribe from weather", True, "negative"),
        ("start sending me weather again", False, "pending"),
    ],
)
async def test_a_reply_about_a_topic_is_feedback_only_on_a_message_of_that_topic(
    proactive: ProactiveModule, clock: FixedClock, text: str, about_weather: bool, label: str
) -> None:
    """A trial: "unsubscribe from weather" marked the deadline reminder it answered ``negative``
    (three negatives suppress deadlines for 21 days), "start sending me weather again" marked it
    ``engaged``. A reply about a topic labels the answered message only when it is of that topic."""
    await proactive.put_user("t", "ana", DEEP)
    await proactive.add_signals("t", "ana", [weather("w1") if about_weather else deadline(9)])
    sent = await proactive.run_cycle("t", "ana")
    assert sent.decision == "sent" and sent.send_id is not None
    clock.advance(minutes=2)
    await proactive.on_message("t", "ana", UserMessageIn(text=text))
    [feedback] = await proactive.feedback_for("t", "ana", ids=[sent.send_id])
    assert feedback.outcome == label
