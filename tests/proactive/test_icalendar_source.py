"""Calendar signals in the user's time zone (issue 24): floating times and all-day dates are local."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from phronesis.exceptions import InvalidInputError
from phronesis.proactive.sources.icalendar_source import signals_from_ics

SINGAPORE = ZoneInfo("Asia/Singapore")  # UTC+8, no daylight saving


def calendar(*events: str) -> bytes:
    body = "".join(f"BEGIN:VEVENT\r\n{e}END:VEVENT\r\n" for e in events)
    return f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n{body}END:VCALENDAR\r\n".encode()


LECTURE = "UID:lecture@test\r\nDTSTAMP:20261127T000000Z\r\nDTSTART:20261128T090000\r\nSUMMARY:CS2103 lecture\r\n"
OFFSITE = "UID:offsite@test\r\nDTSTAMP:20261127T000000Z\r\nDTSTART;VALUE=DATE:20261128\r\nSUMMARY:Offsite\r\n"


def test_a_floating_time_is_the_users_local_time() -> None:
    now = datetime(2026, 11, 28, 0, 30, tzinfo=UTC)  # 08:30 in Singapore: the lecture is in 30 minutes
    [signal] = signals_from_ics(calendar(LECTURE), now, horizon=timedelta(hours=24), zone=SINGAPORE)
    assert signal.expires_at == datetime(2026, 11, 28, 1, 0, tzinfo=UTC)
    assert signal.urgency_hint == 8  # within the hour, not 8 hours away as UTC would read it
    assert signal.data["start"] == "2026-11-28T09:00:00+08:00"


def test_a_floating_time_already_past_locally_is_no_signal() -> None:
    now = datetime(2026, 11, 28, 2, 0, tzinfo=UTC)  # 10:00 in Singapore: the lecture began an hour ago
    assert signals_from_ics(calendar(LECTURE), now, horizon=timedelta(hours=24), zone=SINGAPORE) == []
    # read as UTC it would still be 7 hours ahead
    assert len(signals_from_ics(calendar(LECTURE), now, horizon=timedelta(hours=24))) == 1


def test_an_all_day_event_ends_at_the_users_midnight() -> None:
    now = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)  # already 04:00 on the 28th in Singapore
    [busy] = signals_from_ics(calendar(OFFSITE), now, horizon=timedelta(hours=24), zone=SINGAPORE)
    assert busy.type == "calendar_busy_day" and busy.context_only
    assert busy.expires_at == datetime(2026, 11, 29, tzinfo=SINGAPORE)
    later = datetime(2026, 11, 28, 17, 0, tzinfo=UTC)  # 01:00 on the 29th there: the day is over
    assert signals_from_ics(calendar(OFFSITE), later, horizon=timedelta(hours=24), zone=SINGAPORE) == []


def test_the_horizon_is_kept_in_the_users_zone() -> None:
    now = datetime(2026, 11, 27, 22, 0, tzinfo=UTC)  # 06:00 in Singapore, the lecture 3 hours ahead
    assert signals_from_ics(calendar(LECTURE), now, horizon=timedelta(hours=2), zone=SINGAPORE) == []
    [signal] = signals_from_ics(calendar(LECTURE), now, horizon=timedelta(hours=4), zone=SINGAPORE)
    assert signal.urgency_hint == 6


def test_a_horizon_that_is_not_positive_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="horizon"):
        signals_from_ics(calendar(LECTURE), datetime.now(UTC), horizon=timedelta(hours=-5))
