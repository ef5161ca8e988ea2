"""Issue 24, items 10 and 11: why a user got a message or did not (timeline, counters), and what a
cycle would decide (preview) with nothing written. SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.exceptions import NotFoundError
from phronesis.proactive.controls import PauseIn
from phronesis.proactive.models import MuteIn, OptOutIn, PreviewIn, UserMessageIn
from phronesis.proactive.module import ProactiveModule
from phronesis.storage.database import Database
from phronesis.testing import FixedClock, RecordingChannel
from tests.proactive.conftest import AWAKE, ESTABLISHED, START, deadline


async def test_a_preview_decides_like_a_cycle_and_writes_nothing(
    proactive: ProactiveModule, channel: RecordingChannel, database: Database, clock: FixedClock
) -> None:
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.add_signals("t", "ana", [deadline(9), deadline(6, "reading", title="Reading week")])
    preview = await proactive.preview("t", PreviewIn(user_id="ana"))
    assert (preview.decision, preview.reason, preview.category) == ("would_send", "sent", "deadline_warning")
    assert "CS2103 project" in (preview.message or "")
    assert [c.verdict for c in preview.candidates][0] == "approved" and len(preview.signals) == 2
    assert len((await proactive.list_signals("t", "ana", pending=True)).items) == 2  # nothing used
    assert channel.sent == [] and (await proactive.list_feedback("t")).items == []
    assert await DecisionRecordRepository(database, clock=clock).query("t", kind="proactive") == []
    assert await proactive.stats("t") == {}
    result = await proactive.run_cycle("t", "ana")  # the cycle then decides what the preview said
    assert (result.decision, result.message) == ("sent", preview.message)


async def test_a_preview_at_another_time_applies_that_times_rules(proactive: ProactiveModule) -> None:
    await proactive.put_user("t", "ana", ESTABLISHED.model_copy(update={"sleep_time": "23:00", "wake_time": "07:00"}))
    await proactive.add_signals("t", "ana", [deadline(6)])
    night = START.replace(hour=23, minute=30)  # the same day, after the signal came
    assert (await proactive.preview("t", PreviewIn(user_id="ana", at=night))).reason == "quiet_hours"
    assert (await proactive.preview("t", PreviewIn(user_id="ana", at=START))).decision == "would_send"
    with pytest.raises(NotFoundError):
        await proactive.preview("t", PreviewIn(user_id="nobody"))


async def test_the_timeline_links_signal_cycle_send_and_feedback_and_says_why_not_now(
    proactive: ProactiveModule, clock: FixedClock
) -> None:
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.add_signals("t", "ana", [deadline(6)])
    sent = await proactive.run_cycle("t", "ana")
    clock.advance(minutes=5)
    await proactive.on_message("t", "ana", UserMessageIn(text="thanks, on it"))
    await proactive.add_signals("t", "ana", [deadline(6, "quiz", title="Quiz 2")])
    clock.advance(minutes=5)
    assert (await proactive.tick("t")).reasons == {"cooldown": 1}  # not recorded one by one
    timeline = await proactive.timeline("t", "ana")
    assert (timeline.now.decision, timeline.now.reason) == ("silent", "cooldown")
    kinds = [e.kind for e in timeline.events]
    assert kinds == ["feedback", "reply", "signal", "send", "cycle", "signal_used", "signal"], kinds
    reply = timeline.events[1]
    assert reply.details["text"] == "thanks, on it" and reply.details["intent"] == "reply"
    assert reply.details["send_ids"] == [sent.send_id]
    linked = {e.kind: e for e in timeline.events if e.cycle_key == sent.cycle_key}
    assert set(linked) == {"signal_used", "cycle", "send", "feedback"}
    assert linked["cycle"].ids == {"decision_id": sent.decision_id, "send_id": sent.send_id}
    assert linked["cycle"].details["candidates"][0]["verdict"] == "approved"
    assert linked["feedback"].summary == "engaged after 5 min"
    with pytest.raises(NotFoundError):
        await proactive.timeline("t", "nobody")


async def test_the_timeline_says_what_stopped_the_messages(proactive: ProactiveModule, clock: FixedClock) -> None:
    """A trial's timeline showed the sends but not the "stop" that ended them, nor a mute or a pause."""
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.put_user("t", "ben", AWAKE)
    await proactive.add_signals("t", "ana", [deadline(6)])
    await proactive.run_cycle("t", "ana")
    clock.advance(minutes=2)
    stop = "please stop sending me these"
    await proactive.on_message("t", "ana", UserMessageIn(text=stop))
    clock.advance(minutes=1)
    await proactive.mute("t", "ana", MuteIn(minutes=60))
    clock.advance(minutes=1)
    await proactive.set_pause("t", PauseIn(paused=True, reason="incident 42"))
    await proactive.set_pause("t", PauseIn(paused=True, reason="incident 42"))  # no switch: no second event
    clock.advance(minutes=1)
    await proactive.opt_in("t", "ana", OptOutIn())
    await proactive.mute("t", "ben", MuteIn(minutes=5))  # another user's: not in Ana's story
    timeline = await proactive.timeline("t", "ana")
    done = [(e.kind, e.summary) for e in timeline.events if e.kind not in ("signal", "signal_used", "cycle", "send")]
    assert [kind for kind, _ in done] == ["opt_in", "pause", "mute", "opt_out", "feedback", "reply"], done
    assert dict(done)["pause"] == "paused for the tenant: incident 42"
    reply = next(e for e in timeline.events if e.kind == "reply")
    assert (reply.details["text"], reply.details["intent"]) == (stop, "opt_out_category")
    assert reply.details["opted_out"] == {
        "all": False,
        "categories": [],
        "topics": ["deadline_approaching"],
        "until": None,
    }


async def test_counters_say_why_users_were_not_messaged_without_a_record_per_block(
    proactive: ProactiveModule, clock: FixedClock
) -> None:
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.put_user("t", "ben", ESTABLISHED.model_copy(update={"sleep_time": "11:00", "wake_time": "13:00"}))
    for user in ("ana", "ben"):
        await proactive.add_signals("t", user, [deadline(6)])
    await proactive.tick("t")
    await proactive.on_message("t", "ana", UserMessageIn(text="not helpful"))
    clock.advance(minutes=5)
    await proactive.add_signals("t", "ana", [deadline(6, "more", title="More")])
    await proactive.tick("t")
    day = START.date().isoformat()
    assert await proactive.stats("t") == {
        day: {
            "cycle:cooldown": 1,
            "cycle:quiet_hours": 2,
            "cycle:sent": 1,
            "delivery:sent": 1,
            "feedback:negative": 1,
        }
    }
    assert (await proactive.counters.totals())["cycle:quiet_hours"] == 2
    clock.advance(days=1)
    assert await proactive.stats("t", days=1) == {}  # today only
    assert day in await proactive.stats("t", days=2)
