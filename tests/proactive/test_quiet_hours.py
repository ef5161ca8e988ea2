"""Quiet hours in the user's timezone: overnight and daytime windows, minutes, DST."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.proactive.quiet_hours import is_quiet, local_day_start, next_wake

SINGAPORE = ZoneInfo("Asia/Singapore")
NEW_YORK = ZoneInfo("America/New_York")


@pytest.mark.parametrize(
    ("local", "quiet"),
    [("02:00", True), ("23:00", True), ("22:59", False), ("07:59", True), ("08:00", False), ("12:00", False)],
)
def test_the_seeds_overnight_window(local: str, quiet: bool) -> None:
    """Seed 004: sleep 23:00, wake 08:00 → 23:00–08:00 is quiet (to the minute, not the hour)."""
    hour, minute = map(int, local.split(":"))
    now = datetime(2026, 3, 10, hour, minute, tzinfo=SINGAPORE)
    assert is_quiet(now, SINGAPORE, wake=time(8), sleep=time(23)) is quiet


def test_a_daytime_sleeper_and_no_window() -> None:
    day = datetime(2026, 3, 10, 12, tzinfo=UTC)
    assert is_quiet(day, UTC, wake=time(17), sleep=time(9))
    assert not is_quiet(day.replace(hour=20), UTC, wake=time(17), sleep=time(9))
    assert not is_quiet(day.replace(hour=3), UTC, wake=time(8), sleep=time(8))  # sleep == wake: never quiet


def test_the_users_timezone_decides_not_utc() -> None:
    utc_noon = datetime(2026, 3, 10, 16, tzinfo=UTC)  # 00:00 in Singapore
    assert is_quiet(utc_noon, SINGAPORE, wake=time(8), sleep=time(23))
    assert not is_quiet(utc_noon, UTC, wake=time(8), sleep=time(23))


@given(st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 1, 1)))
def test_quiet_hours_follow_local_wall_time_across_dst(naive: datetime) -> None:
    """Whatever the UTC offset of the day, quiet means a local time between 23:00 and 08:00."""
    now = naive.replace(tzinfo=UTC)
    local = now.astimezone(NEW_YORK).time()
    assert is_quiet(now, NEW_YORK, wake=time(8), sleep=time(23)) is (local >= time(23) or local < time(8))


def test_next_wake_is_local_eight_on_both_sides_of_a_dst_change() -> None:
    before = datetime(2026, 3, 8, 5, tzinfo=UTC)  # 00:00 EST, the night clocks spring forward
    wake = next_wake(before, NEW_YORK, wake=time(8))
    assert (wake.hour, wake.minute, wake.utcoffset()) == (8, 0, timedelta(hours=-4))
    assert next_wake(wake, NEW_YORK, wake=time(8)).date() == wake.date() + timedelta(days=1)


def test_a_local_day_starts_at_local_midnight() -> None:
    start = local_day_start(datetime(2026, 3, 10, 20, tzinfo=UTC), SINGAPORE)
    assert start == datetime(2026, 3, 11, 0, tzinfo=SINGAPORE)
