"""Quiet hours from a user's wake and sleep times, in their own timezone, to the minute.

Seed 004 §3.2: "User sleep_time=23:00, wake_time=08:00 → 23:00–08:00 is quiet". The window
may cross midnight (the usual case) or not (someone who sleeps 01:00–09:00 after midnight
is still an overnight window; a night worker sleeping 09:00–17:00 is a daytime one). The
original checked whole hours; we compare minutes. Local time comes from ``zoneinfo``, so a
DST change moves the UTC instant of the window, never the local one. ``sleep == wake``
means no quiet hours at all (Novu's "start == end is unrestricted").
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

__all__ = ["is_quiet", "local_day_start", "next_wake"]


def _minutes(value: time) -> int:
    return value.hour * 60 + value.minute


def is_quiet(now: datetime, zone: ZoneInfo, *, wake: time, sleep: time) -> bool:
    """Is ``now`` (aware) inside the user's sleep window, in their local time?"""
    start, end = _minutes(sleep), _minutes(wake)
    if start == end:
        return False
    local = now.astimezone(zone)
    minute = local.hour * 60 + local.minute
    if start < end:  # the window does not cross midnight
        return start <= minute < end
    return minute >= start or minute < end


def next_wake(now: datetime, zone: ZoneInfo, *, wake: time) -> datetime:
    """The next local wake time after ``now``, as an aware datetime in ``zone``.

    Built from the local date and wall time, so across a DST change it is still the
    user's 08:00 (a wake time inside a spring-forward gap lands just after the gap).
    """
    local = now.astimezone(zone)
    candidate = datetime.combine(local.date(), wake, tzinfo=zone)
    if candidate <= local:
        candidate = datetime.combine(local.date() + timedelta(days=1), wake, tzinfo=zone)
    # normalise a non-existent wall time (spring forward) through UTC
    return candidate.astimezone(ZoneInfo("UTC")).astimezone(zone)


def local_day_start(now: datetime, zone: ZoneInfo) -> datetime:
    """The start of the user's local calendar day containing ``now`` (for the daily cap)."""
    local = now.astimezone(zone)
    return datetime.combine(local.date(), time(0, 0), tzinfo=zone)
