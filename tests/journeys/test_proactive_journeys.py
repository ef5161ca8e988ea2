"""A student's week with a proactive agent (seed 004), through a real server that runs its own
scheduler: calendar polls, deadlines, quiet hours, replies of every kind, an opt-out, a mute, a
preview. Messages go to a real webhook receiver on loopback; the calendar is a real feed.

The week is compressed (``proactive_week``): a cycle every 3 s, no cooldown, and "night" is
Maya's sleep time moved around the present moment.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.journeys.conftest import Journeys, start
from tests.journeys.proactive_week import SETTINGS, Week
from tests.proactive.calendar_feed import calendar_feed
from tests.proactive.receiver import Receiver, receiver

# a real server with the real sentence model
pytestmark = [pytest.mark.journey, pytest.mark.model, pytest.mark.process]

ZONE = ZoneInfo("Asia/Singapore")
LECTURE = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=30)


@pytest.fixture(scope="module")
def campus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Journeys, Receiver, str]]:
    with receiver() as hook, calendar_feed("cs2103-lecture", "CS2103 lecture", lambda: LECTURE) as feed:
        for journeys in start(tmp_path_factory.mktemp("campus"), **SETTINGS):
            yield journeys, hook, feed.url("maya")


def test_a_students_week(campus: tuple[Journeys, Receiver, str]) -> None:
    journeys, hook, feed = campus
    week = Week(journeys, hook, "maya", "Asia/Singapore", feed)

    # Monday: her timetable is polled; the lecture in 30 minutes is worth a reminder
    week.hours(asleep=False)
    lecture = week.next_message(0)
    assert (lecture["category"], lecture["user_id"]) == ("schedule_info", "maya") and "CS2103 lecture" in lecture[
        "text"
    ]
    reply = week.reply("thanks, on my way")
    assert (reply["intent"], [f["outcome"] for f in reply["feedback"]]) == ("reply", ["engaged"])

    # Monday night: a lab report can wait for the morning; an urgent problem set cannot
    week.hours(asleep=True)
    week.signal("MA1521 lab report", 6)
    week.nothing_for(1)
    assert week.now()["reason"] == "quiet_hours"
    preview = week.call("POST", "/v1/proactive/preview", {"user_id": "maya", "at": _after_she_wakes()})
    assert preview["decision"] == "would_send" and "MA1521 lab report" in preview["message"]  # in the morning
    week.signal("Problem set 4", 9)
    urgent = week.next_message(1)
    assert "Problem set 4" in urgent["text"]
    reply = week.reply("not now, thanks! I'll do it tonight")
    assert (reply["intent"], [f["outcome"] for f in reply["feedback"]]) == ("reply", ["engaged"])

    # Tuesday morning: the lab report was kept for her waking hours
    week.hours(asleep=False)
    morning = week.next_message(2)
    assert "MA1521 lab report" in morning["text"]
    reply = week.reply("please stop sending me these")  # the answered signal type, not all of its category
    assert reply["opted_out"] == {"all": False, "categories": [], "topics": ["deadline_approaching"], "until": None}
    assert [f["outcome"] for f in reply["feedback"]] == ["negative"]

    # Wednesday: deadlines are off, her gym streak is not
    week.signal("CS2101 essay", 9)
    week.nothing_for(3)
    week.signal("Gym streak", 8, type_="habit_streak")
    gym = week.next_message(3)
    assert gym["category"] == "habit"

    # Thursday: exams week, she mutes everything for an hour, urgent or not
    muted = week.call("PUT", "/v1/users/maya/mute", {"minutes": 60})
    assert muted["muted_until"] is not None
    week.signal("Sleep check-in", 9, type_="wellbeing_check")
    week.nothing_for(4)
    assert week.now()["reason"] == "muted"
    week.call("DELETE", "/v1/users/maya/mute")
    checkin = week.next_message(4)
    assert checkin["category"] == "wellbeing"

    # Friday: she has had enough of it
    reply = week.reply("unsubscribe")
    assert reply["opted_out"] == {"all": True, "categories": [], "topics": [], "until": None}
    week.signal("Movie night", 8, type_="social_event")
    week.nothing_for(5)
    assert week.now()["reason"] == "opted_out"

    # the product team looks at the week: her story, and why the rest were not sent
    timeline = week.call("GET", "/v1/users/maya/timeline")
    sends = [e for e in timeline["events"] if e["kind"] == "send"]
    assert len(sends) == 5 and all("sent" in e["summary"] for e in sends)
    feedback = sorted(e["summary"].split()[0] for e in timeline["events"] if e["kind"] == "feedback")
    assert feedback == ["engaged", "engaged", "negative", "negative"]  # "unsubscribe" answered the check-in
    totals = week.totals()
    assert totals["cycle:sent"] == 5 and totals["delivery:sent"] == 5
    for reason in ("quiet_hours", "opted_out", "muted"):
        assert totals[f"cycle:{reason}"] >= 1, totals
    assert totals["opt_out:topic"] == 1 and totals["opt_out:all"] == 1


def _after_she_wakes() -> str:
    """An hour after the wake time ``Week.hours(asleep=True)`` set (two hours from now). It was
    noon of the next local day: after midnight in Singapore that is 35 hours away, when the
    signal has expired, and the preview was silent (the journey failed from 16:00 to 04:00 UTC)."""
    return (datetime.now(ZONE) + timedelta(hours=3)).isoformat()
