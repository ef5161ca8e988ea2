"""Two more weeks with a proactive agent (seed 004), through a real server that runs its own
scheduler, messages going to a real webhook receiver on loopback (issue 48's invented users):

- a parent in New York: four bills at once, weather alerts she never answers, "unsubscribe from
  weather", an appointment, and the channel down while the rent is due;
- a night-shift nurse in Sydney who sleeps by day: a reminder that waits for her to wake and
  says so, deadlines worded alike, numbered shift swaps, and "no more roster reminders".

Each failed on the code before issue 48 (the fourth bill used up unseen, the school pickup
muted with the weather, every message stopped by "unsubscribe from weather", the rent never
delivered, "Roster preferences" and "Shift swap 4" dropped as repeats). The week is compressed
(``proactive_week``); feedback windows are seconds long so ignored messages count within it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.journeys.conftest import Journeys, start
from tests.journeys.proactive_week import SETTINGS, Week, about
from tests.proactive.receiver import Receiver, receiver

pytestmark = [pytest.mark.journey, pytest.mark.model, pytest.mark.process]


@pytest.fixture(scope="module")
def town(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Journeys, Receiver]]:
    with receiver() as hook:
        settings = SETTINGS | {
            # a message unanswered for 9 s is ignored; three ignored ones switch their type off
            "PHRONESIS_PROACTIVE__ENGAGEMENT_WINDOW_MINUTES": "0.1",
            "PHRONESIS_PROACTIVE__IGNORE_TIMEOUT_MINUTES": "0.15",
            "PHRONESIS_PROACTIVE__SUPPRESS_AFTER_SENDS": "3",
            # an outage in seconds: one post per delivery, two deliveries a second apart, then given up
            "PHRONESIS_PROACTIVE__DELIVERY_ATTEMPTS": "1",
            "PHRONESIS_PROACTIVE__OUTBOX_ATTEMPTS": "2",
            "PHRONESIS_PROACTIVE__OUTBOX_RETRY_SEC": "1",
        }
        for journeys in start(tmp_path_factory.mktemp("town"), **settings):
            yield journeys, hook


def _roomy(week: Week) -> None:
    """A deep-trust user's cap from 5 to 30 a day: a compressed week sends a week's messages in minutes."""
    week.call("PUT", "/v1/settings/proactive.daily_cap.deep", {"value": 30})


def _outcomes(week: Week) -> dict[str, tuple[str | None, str | None]]:
    return {s["data"]["title"]: (s["outcome"], s["outcome_reason"]) for s in week.stored()}


def test_a_parents_week(town: tuple[Journeys, Receiver]) -> None:
    journeys, hook = town
    week = Week(journeys, hook, "ana", "America/New_York")
    _roomy(week)
    week.hours(asleep=False)

    # Monday: four things due at once; a cycle judges three candidates, the fourth waits its turn
    bills = [("Daycare fee", 8, "bill_due"), ("Car registration", 7, "deadline_approaching")]
    bills += [("Water bill", 6, "bill_due"), ("Library books", 6, "deadline_approaching")]
    week.signals(*(about(title, urgency, kind, hours=20) for title, urgency, kind in bills))
    told = []
    for n in range(4):
        told.append(week.next_message(n)["text"])
        week.reply("thanks")
    for title, _, _ in bills:
        assert sum(title in text for text in told) == 1, told  # each told once, none used up unseen
    assert all(outcome == "sent" for outcome, _ in _outcomes(week).values())

    # Tuesday: weather alerts she never answers switch weather alerts off, and nothing else
    for n in range(3):
        week.signal(f"Heavy rain {n}", 7, "weather_alert")
        assert f"Heavy rain {n}" in week.next_message(4 + n)["text"]
    _wait_for(lambda: week.call("GET", "/v1/users/ana/feedback-summary")["suppressed_types"] == ["weather_alert"])
    week.signal("Fog this evening", 7, "weather_alert")
    week.nothing_for(7)
    assert _outcomes(week)["Fog this evening"][0] == "suppressed"
    week.signal("School pickup for Leo moved to 15:00", 7, "pickup_changed")
    pickup = week.next_message(7)
    assert pickup["category"] == "nudge" and "School pickup for Leo" in pickup["text"]
    week.reply("ok, thanks")

    # Wednesday: she says what she does not want, in her words
    reply = week.reply("unsubscribe from weather")
    assert (reply["intent"], reply["opted_out"]["all"], reply["opted_out"]["topics"]) == (
        "opt_out_topic",
        False,
        ["weather"],
    )
    week.signal("Tornado watch", 9, "weather_alert")
    week.nothing_for(8)
    assert _outcomes(week)["Tornado watch"][0] == "opted_out"
    week.signals(about("Dentist appointment", 8, "calendar_event_approaching", hours=0.75, moment="start"))
    dentist = week.next_message(8)["text"]
    assert "Dentist appointment" in dentist and "minutes" in dentist and "soon" not in dentist
    week.reply("thanks!")

    # Thursday: the channel is down while the rent is due; it arrives once the channel is back
    hook.script.extend([503, 503, 503])
    week.signal("Rent transfer", 9, "bill_due", hours=3)
    _wait_for(lambda: not hook.script and "Rent transfer" in week.messages()[-1]["text"], timeout_s=60)
    _wait_for(lambda: _outcomes(week)["Rent transfer"][0] == "sent")
    # recorded once the receiver answered; the failed posts are not counted
    _wait_for(lambda: week.call("GET", "/v1/users/ana/feedback-summary")["total_sent"] == 10)
    assert week.totals()["delivery:failed"] >= 1


def test_a_night_nurses_week(town: tuple[Journeys, Receiver]) -> None:
    journeys, hook = town
    week = Week(journeys, hook, "sipho", "Australia/Sydney")
    _roomy(week)

    # she sleeps by day: a training reminder waits for her, and says why
    week.hours(asleep=True)
    week.signal("Mandatory training module", 6)
    week.nothing_for(0)
    [training] = week.stored()
    assert (training["outcome"], training["outcome_reason"]) == (None, "waiting: the user's quiet hours")
    week.hours(asleep=False)
    assert "Mandatory training module" in week.next_message(0)["text"]
    week.reply("will do")

    # a deadline worded like the last one is another deadline, not a repeat
    week.signal("Roster preferences", 9)
    assert "Roster preferences" in week.next_message(1)["text"]
    week.reply("done")

    # numbered shift swaps: the "4" of "in about 4 h" is not the swap's number
    week.signal("Shift swap 3", 8, hours=4)
    assert "Shift swap 3" in week.next_message(2)["text"]
    week.reply("ok")
    week.signal("Shift swap 4", 8, hours=4)
    assert "Shift swap 4" in week.next_message(3)["text"]
    reply = week.reply("thanks, not annoying at all")
    assert (reply["intent"], [f["outcome"] for f in reply["feedback"]]) == ("reply", ["engaged"])

    # she stops one kind of message; the others still come
    week.signal("Roster published", 8, "roster_update")
    assert "Roster published" in week.next_message(4)["text"]
    reply = week.reply("no more roster updates please")
    assert (reply["intent"], reply["opted_out"]["topics"]) == ("opt_out_topic", ["roster"])
    week.signal("Roster changed for Friday", 9, "roster_update")
    week.nothing_for(5)
    week.signal("Payslip available", 8, "payroll_notice")
    assert "Payslip" in week.next_message(5)["text"]
    states = _outcomes(week)
    assert states["Roster changed for Friday"][0] == "opted_out"
    assert all(outcome is not None for outcome, _ in states.values()), states  # every signal accounted for


def _wait_for(condition: Any, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError("the server never got there")
