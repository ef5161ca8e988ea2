"""Calendar signals in the user's time zone (issue 24): floating times and all-day dates are local."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from phronesis.exceptions import InvalidInputError
from phronesis.proactive.models import SignalIn
from phronesis.proactive.sources.icalendar_source import signals_from_ics

SINGAPORE = ZoneInfo("Asia/Singapore")  # UTC+8, no daylight saving


def events(data: bytes, now: datetime, **given: Any) -> list[SignalIn]:
    """The signals of the calendar's events (the day signals left out)."""
    return [s for s in signals_from_ics(data, now, **given) if s.type == "calendar_event_approaching"]


def calendar(*events: str) -> bytes:
    body = "".join(f"BEGIN:VEVENT\r\n{e}END:VEVENT\r\n" for e in events)
    return f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n{body}END:VCALENDAR\r\n".encode()


LECTURE = "UID:lecture@test\r\nDTSTAMP:20261127T000000Z\r\nDTSTART:20261128T090000\r\nSUMMARY:CS2103 lecture\r\n"
OFFSITE = "UID:offsite@test\r\nDTSTAMP:20261127T000000Z\r\nDTSTART;VALUE=DATE:20261128\r\nSUMMARY:Offsite\r\n"


def test_a_floating_time_is_the_users_local_time() -> None:
    now = datetime(2026, 11, 28, 0, 30, tzinfo=UTC)  # 08:30 in Singapore: the lecture is in 30 minutes
    [signal] = events(calendar(LECTURE), now, horizon=timedelta(hours=24), zone=SINGAPORE)
    assert signal.expires_at == datetime(2026, 11, 28, 1, 0, tzinfo=UTC)
    assert signal.urgency_hint == 8  # within the hour, not 8 hours away as UTC would read it
    assert signal.data["start"] == "2026-11-28T09:00:00+08:00"


def test_a_time_zone_nobody_knows_is_said_not_read_silently_as_local(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 52: an unknown TZID was read as the user's local time without a word."""
    now = datetime(2026, 11, 28, 0, 30, tzinfo=UTC)
    odd = LECTURE.replace("DTSTART:20261128T090000", "DTSTART;TZID=Mars/Olympus:20261128T090000")
    with caplog.at_level("WARNING", logger="phronesis.proactive.calendar"):
        [signal] = events(calendar(odd), now, horizon=timedelta(hours=24), zone=SINGAPORE)
    assert signal.data["unknown_tzid"] == "Mars/Olympus" and signal.data["start"] == "2026-11-28T09:00:00+08:00"
    assert "'Mars/Olympus'" in caplog.text and "Asia/Singapore" in caplog.text
    [known] = events(calendar(LECTURE), now, horizon=timedelta(hours=24), zone=SINGAPORE)
    assert "unknown_tzid" not in known.data  # a floating time names no zone: nothing to say


def test_a_floating_time_already_past_locally_is_no_signal() -> None:
    now = datetime(2026, 11, 28, 2, 0, tzinfo=UTC)  # 10:00 in Singapore: the lecture began an hour ago
    assert events(calendar(LECTURE), now, horizon=timedelta(hours=24), zone=SINGAPORE) == []
    # read as UTC it would still be 7 hours ahead
    assert len(events(calendar(LECTURE), now, horizon=timedelta(hours=24))) == 1


def test_an_all_day_event_ends_at_the_users_midnight() -> None:
    now = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)  # already 04:00 on the 28th in Singapore
    [busy] = [s for s in signals_from_ics(calendar(OFFSITE), now, horizon=timedelta(hours=24), zone=SINGAPORE)
              if s.type == "calendar_busy_day"]  # fmt: skip
    assert (busy.urgency_hint, busy.context_only, busy.data["title"]) == (5, False, "Offsite (all day)")  # seed §9
    assert busy.expires_at == datetime(2026, 11, 29, tzinfo=SINGAPORE)
    later = datetime(2026, 11, 28, 17, 0, tzinfo=UTC)  # 01:00 on the 29th there: the day is over
    found = signals_from_ics(calendar(OFFSITE), later, horizon=timedelta(hours=24), zone=SINGAPORE)
    assert "calendar_busy_day" not in {s.type for s in found}


def test_the_horizon_is_kept_in_the_users_zone() -> None:
    now = datetime(2026, 11, 27, 22, 0, tzinfo=UTC)  # 06:00 in Singapore, the lecture 3 hours ahead
    assert events(calendar(LECTURE), now, horizon=timedelta(hours=2), zone=SINGAPORE) == []
    [signal] = events(calendar(LECTURE), now, horizon=timedelta(hours=4), zone=SINGAPORE)
    assert signal.urgency_hint == 6


def test_a_horizon_that_is_not_positive_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="horizon"):
        signals_from_ics(calendar(LECTURE), datetime.now(UTC), horizon=timedelta(hours=-5))


def _meeting(n: int, day: str, hour: int) -> str:
    return f"UID:m{n}@test\r\nDTSTAMP:20261127T000000Z\r\nDTSTART:{day}T{hour:02d}0000\r\nSUMMARY:Meeting {n}\r\n"


def test_a_busy_day_and_an_empty_day_are_signals_at_urgency_5() -> None:
    """Seed 004 §9: CALENDAR_BUSY_DAY and CALENDAR_EMPTY_DAY at medium urgency (5). Issue 48: the busy
    day was urgency 3 and context only, the empty day did not exist."""
    now = datetime(2026, 11, 27, 12, 0, tzinfo=SINGAPORE)  # Friday noon; Saturday has four meetings
    busy_saturday = calendar(*(_meeting(n, "20261128", 9 + 2 * n) for n in range(4)))
    found = {s.type: s for s in signals_from_ics(busy_saturday, now, horizon=timedelta(hours=24), zone=SINGAPORE)}
    busy = found["calendar_busy_day"]
    assert (busy.urgency_hint, busy.context_only, busy.data["date"]) == (5, False, "2026-11-28")
    assert busy.data["title"] == "4 events from 09:00" and busy.expires_at == datetime(2026, 11, 29, tzinfo=SINGAPORE)
    assert "calendar_empty_day" not in found
    three = calendar(*(_meeting(n, "20261128", 9 + 2 * n) for n in range(3)))
    assert "calendar_busy_day" not in {s.type for s in signals_from_ics(three, now, horizon=timedelta(hours=24),
                                                                          zone=SINGAPORE)}  # fmt: skip
    [empty] = signals_from_ics(calendar(), now, horizon=timedelta(hours=24), zone=SINGAPORE)
    assert (empty.type, empty.urgency_hint, empty.data["date"]) == ("calendar_empty_day", 5, "2026-11-28")
    # today has begun: an empty rest of today is no news
    assert all(s.data["date"] != "2026-11-27" for s in signals_from_ics(calendar(), now, horizon=timedelta(hours=24),
                                                                         zone=SINGAPORE))  # fmt: skip


def test_day_signals_can_be_switched_off() -> None:
    now = datetime(2026, 11, 27, 12, 0, tzinfo=SINGAPORE)
    assert signals_from_ics(calendar(), now, horizon=timedelta(hours=24), zone=SINGAPORE, days=False) == []
    [lecture] = signals_from_ics(calendar(LECTURE), datetime(2026, 11, 28, 0, 30, tzinfo=UTC),
                                 horizon=timedelta(hours=24), zone=SINGAPORE, days=False)  # fmt: skip
    assert lecture.type == "calendar_event_approaching"
