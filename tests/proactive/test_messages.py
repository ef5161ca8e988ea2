"""Messages people would write (issue 48, item 7): template messages per signal type, with the time
in the user's zone and words. The golden file holds every rendering below; a change to a message
shows up as a diff a person reviews (``UPDATE_GOLDEN=1`` rewrites it)."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from phronesis.proactive.models import Signal
from phronesis.proactive.templates import render, template_candidates, timing_score

GOLDEN = Path(__file__).with_name("golden") / "messages.txt"
SYDNEY, SINGAPORE, NEW_YORK = ZoneInfo("Australia/Sydney"), ZoneInfo("Asia/Singapore"), ZoneInfo("America/New_York")


def _signal(type_: str, urgency: int = 6, **data: Any) -> Signal:
    now = datetime(2026, 3, 10, tzinfo=ZoneInfo("UTC"))
    return Signal(id=type_, user_id="u", type=type_, urgency_hint=urgency, data=data, context_only=False,
                  dedup_key=type_, created_at=now, expires_at=now + timedelta(days=30))  # fmt: skip


def _at(zone: ZoneInfo, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=zone)


# (who, now, signal type, data): a night-shift nurse in Sydney, a student in Singapore, a parent in New York
def _cases(who: str, now: datetime) -> list[tuple[str, datetime, str, dict[str, Any]]]:
    def in_(**delta: float) -> str:
        return (now + timedelta(**delta)).isoformat()

    tomorrow = (now + timedelta(days=1)).date().isoformat()
    later = (now + timedelta(days=12)).date().isoformat()
    return [
        (who, now, type_, data)
        for type_, data in (
            ("deadline_approaching", {"title": "Problem set 4", "due": in_(minutes=45)}),
            ("deadline_approaching", {"title": "Roster preferences", "due": in_(hours=5)}),
            ("deadline_approaching", {"title": "Tax form W-9", "due": in_(days=1, hours=2)}),
            ("deadline_approaching", {"title": "Grant report", "due": in_(days=4)}),
            ("deadline_approaching", {"title": "Library book", "due": in_(hours=-3)}),
            ("bill_due", {"title": "Water bill", "due": in_(days=2)}),
            ("payment_due", {"title": "Rent transfer", "due": in_(hours=9)}),
            ("invoice_due", {"title": "Daycare fee", "date": later}),
            ("calendar_event_approaching", {"title": "Dentist appointment", "start": in_(minutes=50)}),
            ("calendar_event_approaching", {"title": "Team stand-up", "start": in_(hours=20)}),
            ("calendar_event_changed", {"title": "School pickup for Leo moved to 14:30", "start": in_(hours=4)}),
            ("calendar_event_changed", {"title": "Parent-teacher meeting", "start": in_(days=2)}),
            ("calendar_busy_day", {"title": "5 events from 08:30", "date": tomorrow}),
            ("calendar_empty_day", {"title": "nothing in your calendar", "date": tomorrow}),
            ("package_delivery", {"title": "Nimbus thermostat", "when": in_(hours=6)}),
            ("package_delivery", {"title": "Nimbus thermostat", "status": "delivered"}),
            ("birthday", {"title": "Sam birthday", "date": tomorrow}),
            ("device_offline", {"title": "Front door camera offline"}),
            ("weather_alert", {"title": "Storm warning until 22:00"}),
            ("email_important", {"title": "Offer letter from Acme"}),
        )
    ]


# a night-shift nurse in Sydney (a Tuesday afternoon, before a shift), a student in Singapore, a parent in New York
CASES = [
    *_cases("nurse", _at(SYDNEY, 10, 16, 30)),
    *_cases("student", _at(SINGAPORE, 10, 9, 15)),
    *_cases("parent", _at(NEW_YORK, 10, 7, 5)),
]


def _rendered() -> str:
    lines = []
    for who, now, type_, data in CASES:
        signal = _signal(type_, **data)
        assert now.tzinfo is not None
        made = template_candidates([signal], now.astimezone(ZoneInfo("UTC")), limit=1, zone=now.tzinfo)
        said = f"{made[0].message}  [{made[0].action_type}]" if made else "(no message: its moment has passed)"
        lines.append(f"{who:<8} {now:%a %H:%M} {type_:<27} {said}")
    return "\n".join(lines) + "\n"


def test_the_rendered_messages_are_the_reviewed_ones() -> None:
    assert len(CASES) >= 40
    rendered = _rendered()
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(rendered, encoding="utf-8")
    assert rendered == GOLDEN.read_text(encoding="utf-8"), "a message changed: review it, then UPDATE_GOLDEN=1"


AT_18_30 = "2026-03-10T18:30:00+00:00"


@pytest.mark.parametrize(
    ("type_", "data", "words", "not_words"),
    [
        # issue 48's review: each of these read wrong
        ("calendar_event_changed", {"title": "School pickup for Leo moved to 14:30", "start": AT_18_30},
         "School pickup for Leo moved to 14:30.", "in about"),
        ("device_offline", {"title": "Front door camera offline"}, "Front door camera offline.", "soon"),
        ("package_delivery", {"title": "Nimbus thermostat", "status": "delivered"}, "has been delivered", "already"),
        ("package_delivery", {"title": "Parcel was left at the door", "status": "delivered"},
         "Parcel was left at the door.", "has been delivered"),
        ("birthday", {"title": "Sam birthday", "date": "2026-03-11"}, "Sam's birthday is tomorrow.", "Sam birthday"),
        ("bill_due", {"title": "Water bill", "due": "2026-03-11T09:00:00+00:00"},
         "Water bill is due tomorrow at 09:00.", "block some time"),
        # a trial: an alert under way read as the hour it began ("Thunderstorm warning, today at 02:04.")
        ("weather_alert", {"title": "Thunderstorm warning", "start": "2026-03-10T13:00:00+00:00",
                           "until": "2026-03-10T17:00:00+00:00"}, "Thunderstorm warning until 17:00.", "13:00"),
        ("weather_alert", {"title": "Heat warning", "start": "2026-03-11T10:00:00+00:00",
                           "until": "2026-03-11T18:00:00+00:00"},
         "Heat warning from 10:00 tomorrow until 18:00 tomorrow.", "in about"),
    ],
)  # fmt: skip
def test_the_messages_issue_48_found_wrong(type_: str, data: dict[str, Any], words: str, not_words: str) -> None:
    message, _ = render(_signal(type_, **data), datetime(2026, 3, 10, 14, 0, tzinfo=ZoneInfo("UTC")))
    assert words in message and not_words not in message, message


def test_an_event_whose_moment_has_passed_gets_no_message() -> None:
    """ "Heads-up: Dentist appointment already." was previewed an hour after the appointment."""
    dentist = _signal("calendar_event_approaching", title="Dentist appointment", start="2026-03-10T13:00:00+00:00")
    assert template_candidates([dentist], datetime(2026, 3, 10, 14, 0, tzinfo=ZoneInfo("UTC")), limit=3) == []


def test_a_day_is_told_the_evening_before_or_its_morning() -> None:
    """A free or busy tomorrow is worth a message at 19:00, not at noon the day before."""
    day = _signal("calendar_empty_day", urgency=5, title="nothing in your calendar", date="2026-03-11",
                  day_start=_at(SINGAPORE, 11, 0).isoformat())  # fmt: skip
    timing = {hour: timing_score(day, _at(SINGAPORE, 10, hour)) for hour in (12, 19)}
    assert timing == {12: 3.0, 19: 7.0}
    assert timing_score(day, _at(SINGAPORE, 11, 8)) == 7.0  # its morning


@pytest.mark.parametrize(
    ("type_", "data", "message"),
    [
        # a trial of this stop's templates (a new user, the README alone)
        ("birthday", {"title": "Mum's birthday", "date": "2026-03-11"}, "Mum's birthday is tomorrow."),
        ("package_delivery", {"title": "Parcel delivered to front door", "status": "delivered"},
         "Parcel delivered to front door."),
        ("bill_due", {"title": "Rent transfer", "due": "2026-03-10T13:00:00+00:00"},
         "Rent transfer was due today at 13:00."),
    ],
)  # fmt: skip
def test_what_a_trial_found_in_the_new_templates(type_: str, data: dict[str, Any], message: str) -> None:
    assert render(_signal(type_, **data), datetime(2026, 3, 10, 14, 0, tzinfo=ZoneInfo("UTC")))[0] == message
