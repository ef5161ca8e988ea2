"""A student's week with a proactive agent (seed 004), through a real server that runs its own
scheduler: calendar polls, deadlines, quiet hours, replies of every kind, an opt-out, a mute, a
preview. Messages go to a real webhook receiver on loopback; the calendar is a real feed.

The server's clock is the real one, so the week is compressed: a cycle every 3 s, no cooldown,
and "night" is Maya's sleep time moved around the present moment.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.journeys.conftest import Journeys, Tenant, start
from tests.proactive.calendar_feed import calendar_feed
from tests.proactive.receiver import Receiver, receiver

# a real server with the real sentence model
pytestmark = [pytest.mark.journey, pytest.mark.model, pytest.mark.process]

ZONE = ZoneInfo("Asia/Singapore")
LECTURE = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=30)


class Week:
    def __init__(self, journeys: Journeys, hook: Receiver, feed: str) -> None:
        self.tenant: Tenant = journeys.tenant()
        self.hook = hook
        self.feed = feed

    def call(self, method: str, path: str, body: Any = None) -> Any:
        response = self.tenant.http.request(method, path, json=body)
        assert response.status_code < 300, f"{method} {path}: {response.text}"
        return response.json() if response.content else None

    def hours(self, *, asleep: bool) -> None:
        """Maya's profile with her sleep time around now (asleep) or twelve hours away (awake)."""
        local = datetime.now(ZONE)
        sleep, wake = (local - timedelta(hours=2), local + timedelta(hours=2))
        if not asleep:
            sleep, wake = local + timedelta(hours=6), local - timedelta(hours=6)
        profile = {
            "timezone": "Asia/Singapore",
            "sleep_time": f"{sleep:%H:%M}",
            "wake_time": f"{wake:%H:%M}",
            "created_at": "2025-01-01T00:00:00Z",
            "interaction_count": 500,
            "channel": "webhook",
            "address": f"{self.hook.url}/maya",
            "calendar_url": self.feed,
        }
        self.call("PUT", "/v1/users/maya", profile)

    def signal(self, title: str, urgency: int, type_: str = "deadline_approaching") -> None:
        due = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
        signal = {"type": type_, "urgency_hint": urgency, "data": {"title": title, "due": due}, "dedup_key": title}
        self.call("POST", "/v1/users/maya/signals", {"signals": [signal]})

    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(r.body) for r in self.hook.received if r.path == "/maya"]

    def next_message(self, seen: int, timeout_s: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            messages = self.messages()
            if len(messages) > seen:
                assert len(messages) == seen + 1, messages[seen:]
                self._recorded(seen + 1, deadline)
                return messages[seen]
            time.sleep(0.2)
        raise AssertionError(f"no message after {seen}: {self.call('GET', '/v1/users/maya/timeline')['now']}")

    def _recorded(self, sent: int, deadline: float) -> None:
        """Until the server has recorded the delivery the webhook just received: a person reads
        a message after it arrived. (A reply within the delivery's own round trip answers it
        too, ``SendRepository.pending``; waiting keeps the week's counts deterministic.)"""
        while time.monotonic() < deadline:
            if self.call("GET", "/v1/users/maya/feedback-summary")["total_sent"] >= sent:
                return
            time.sleep(0.05)
        raise AssertionError(f"the server never recorded delivery {sent}")

    def nothing_for(self, seen: int, seconds: float = 8) -> None:
        """Two or three scheduler ticks pass without a message."""
        time.sleep(seconds)
        assert len(self.messages()) == seen, self.messages()[seen:]

    def reply(self, text: str) -> dict[str, Any]:
        result: dict[str, Any] = self.call("POST", "/v1/users/maya/messages", {"text": text})
        return result

    def now(self) -> dict[str, Any]:
        result: dict[str, Any] = self.call("GET", "/v1/users/maya/timeline")["now"]
        return result


@pytest.fixture(scope="module")
def campus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Journeys, Receiver, str]]:
    with receiver() as hook, calendar_feed("cs2103-lecture", "CS2103 lecture", lambda: LECTURE) as feed:
        settings = {
            "PHRONESIS_LLM__SPEC": "none",
            "PHRONESIS_PROACTIVE__SCHEDULER": "true",
            "PHRONESIS_PROACTIVE__CYCLE_MINUTES": "0.05",
            "PHRONESIS_PROACTIVE__COOLDOWN_MINUTES": "0",
            # her week is about deadlines and replies; a busy or empty day (seed §9) is timed by the
            # hour a test happens to run (the evening before, the morning of): tested on its own
            "PHRONESIS_PROACTIVE__CALENDAR_DAYS": "false",
            "PHRONESIS_OUTBOUND__ALLOW": "127.0.0.1",
        }
        for journeys in start(tmp_path_factory.mktemp("campus"), **settings):
            yield journeys, hook, feed.url("maya")


def test_a_students_week(campus: tuple[Journeys, Receiver, str]) -> None:
    week = Week(*campus)

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
    reply = week.reply("please stop sending me these")
    assert reply["opted_out"] == {"all": False, "categories": ["deadline_warning"]}
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
    assert reply["opted_out"] == {"all": True, "categories": []}
    week.signal("Movie night", 8, type_="social_event")
    week.nothing_for(5)
    assert week.now()["reason"] == "opted_out"

    # the product team looks at the week: her story, and why the rest were not sent
    timeline = week.call("GET", "/v1/users/maya/timeline")
    sends = [e for e in timeline["events"] if e["kind"] == "send"]
    assert len(sends) == 5 and all("sent" in e["summary"] for e in sends)
    feedback = sorted(e["summary"].split()[0] for e in timeline["events"] if e["kind"] == "feedback")
    assert feedback == ["engaged", "engaged", "negative", "negative"]  # "unsubscribe" answered the check-in
    stats = week.call("GET", "/v1/proactive/stats")
    totals: dict[str, int] = {}
    for counts in stats.values():
        for name, value in counts.items():
            totals[name] = totals.get(name, 0) + value
    assert totals["cycle:sent"] == 5 and totals["delivery:sent"] == 5
    for reason in ("quiet_hours", "opted_out", "muted"):
        assert totals[f"cycle:{reason}"] >= 1, totals
    assert totals["opt_out:category"] == 1 and totals["opt_out:all"] == 1


def _after_she_wakes() -> str:
    """An hour after the wake time ``Week.hours(asleep=True)`` set (two hours from now). It was
    noon of the next local day: after midnight in Singapore that is 35 hours away, when the
    signal has expired, and the preview was silent (the journey failed from 16:00 to 04:00 UTC)."""
    return (datetime.now(ZONE) + timedelta(hours=3)).isoformat()
