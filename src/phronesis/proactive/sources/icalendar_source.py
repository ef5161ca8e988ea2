"""Calendar signals from an iCalendar (.ics) file or URL (seed 004's Layer 1, calendar collector).

Every event (recurring ones expanded) starting within ``horizon`` becomes a
``calendar_event_approaching`` signal: urgency 8 within the hour (the original's static
urgency for approaching events), 6 within six hours, 4 later. The dedup key is the
event's UID and start, so polling the same calendar again adds nothing; the signal
expires when the event starts. All-day events are about the day, not a moment: they make
the day a ``calendar_busy_day``, until the end of that day where the user lives.

Seed 004 §9 adds the days themselves, at urgency 5: ``calendar_busy_day`` for a day with an
all-day event or ``BUSY_EVENTS`` timed ones, ``calendar_empty_day`` for a day not yet begun with
nothing in it.

A floating time (no ``TZID``, no ``Z``: "09:00 wherever I am", RFC 5545 §3.3.5) and an
all-day date are the user's local time: read as UTC, a Singapore user's 09:00 lecture would be
reminded eight hours late and their busy day end at 08:00 local.
"""

from __future__ import annotations

import logging
from contextlib import nullcontext
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any

import httpx
import icalendar
import recurring_ical_events

from phronesis.exceptions import InvalidInputError
from phronesis.outbound import BlockedAddress, read_limited
from phronesis.proactive.models import SignalIn

__all__ = ["ICalendarSource", "signals_from_ics"]

log = logging.getLogger("phronesis.proactive.calendar")

MAX_BYTES = 5_000_000


def _urgency(until_start: timedelta) -> int:
    if until_start <= timedelta(hours=1):
        return 8
    if until_start <= timedelta(hours=6):
        return 6
    return 4


def _text(component: Any, key: str) -> str:
    value = component.get(key)
    return str(value)[:300] if value is not None else ""


# how far a floating time can be from UTC (UTC-12 to UTC+14): the expansion's window is widened
# by it, and what falls outside the horizon once read in the user's zone is dropped here
_FLOATING_SLACK = timedelta(hours=15)


BUSY_EVENTS = 4
"""Timed events in one day that make it a busy day (an all-day event does alone)."""


def _day_bounds(day: date, zone: tzinfo) -> tuple[datetime, datetime]:
    begins = datetime.combine(day, time.min, tzinfo=zone)
    return begins, datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone)


def _days(now: datetime, horizon: timedelta, zone: tzinfo) -> list[date]:
    """The user's local days the horizon reaches: today, and each later day starting within it."""
    first = now.astimezone(zone).date()
    days = [first]
    while _day_bounds(days[-1] + timedelta(days=1), zone)[0] <= now + horizon:
        days.append(days[-1] + timedelta(days=1))
    return days


def _day_signals(
    days: list[date], timed: dict[date, list[tuple[datetime, str]]], all_day: dict[date, list[str]],
    now: datetime, zone: tzinfo,
) -> list[SignalIn]:
    """Seed 004 §9: CALENDAR_BUSY_DAY and CALENDAR_EMPTY_DAY, both urgency 5. A day is busy with an
    all-day event or ``BUSY_EVENTS`` timed ones (until it ends); a day not begun with nothing in the
    calendar is empty (until it ends: a free day is worth knowing the evening before)."""
    out = []
    for day in days:
        starts, ends = _day_bounds(day, zone)
        events = sorted(timed.get(day, []))
        whole = all_day.get(day, [])
        if whole or len(events) >= BUSY_EVENTS:
            parts = [f"{title} (all day)" for title in whole]
            if events:
                parts.append(f"{len(events)} event{'s' if len(events) > 1 else ''} from {events[0][0]:%H:%M}")
            out.append(
                SignalIn(
                    type="calendar_busy_day",
                    urgency_hint=5,
                    data={"title": "; ".join(parts), "date": day.isoformat(), "day_start": starts.isoformat(),
                          "events": len(events) + len(whole)},
                    dedup_key=f"calendar:busy:{day.isoformat()}",
                    expires_at=ends,
                )
            )  # fmt: skip
        elif not events and starts > now:
            out.append(
                SignalIn(
                    type="calendar_empty_day",
                    urgency_hint=5,
                    data={"title": "nothing in your calendar", "date": day.isoformat(),
                          "day_start": starts.isoformat()},
                    dedup_key=f"calendar:empty:{day.isoformat()}",
                    expires_at=ends,
                )
            )  # fmt: skip
    return out


def signals_from_ics(
    data: bytes,
    now: datetime,
    *,
    horizon: timedelta,
    zone: tzinfo = UTC,
    where: str = "calendar",
    days: bool = True,
) -> list[SignalIn]:
    """Signals for the events starting within ``horizon`` of ``now``, and for the days it reaches
    (busy, empty); floating times and all-day dates are read in ``zone``, the user's time zone."""
    if horizon <= timedelta(0):
        raise InvalidInputError("horizon", "must be positive")
    try:
        calendar = icalendar.Calendar.from_ical(data)
    except ValueError as exc:
        raise InvalidInputError(where, f"not an iCalendar file: {exc}") from None
    reached = _days(now, horizon, zone) if days else []
    until = max([now + horizon, *(_day_bounds(d, zone)[1] for d in reached[-1:])])  # the last day whole
    try:
        events = recurring_ical_events.of(calendar, skip_bad_series=True).between(
            now - _FLOATING_SLACK, until + _FLOATING_SLACK
        )
    except (ValueError, TypeError) as exc:
        raise InvalidInputError(where, f"cannot expand its events: {exc}") from None
    unknown_zones = _unknown_tzids(calendar)
    out = []
    timed: dict[date, list[tuple[datetime, str]]] = {}
    all_day: dict[date, list[str]] = {}
    for event in events:
        start = event.get("DTSTART").dt
        uid = _text(event, "UID") or _text(event, "SUMMARY")
        title = _text(event, "SUMMARY") or "(untitled event)"
        if not isinstance(start, datetime):  # an all-day event: a date, about the day
            assert isinstance(start, date)
            all_day.setdefault(start, []).append(title)
            continue
        unknown_zone = unknown_zones.get(uid) if start.tzinfo is None else None
        if unknown_zone is not None:
            log.warning("%s: event %r names a time zone this machine does not know (%r): read in %s", where,
                        title, unknown_zone, zone)  # fmt: skip
        start = start if start.tzinfo else start.replace(tzinfo=zone)  # a floating time: the user's
        timed.setdefault(start.astimezone(zone).date(), []).append((start.astimezone(zone), title))
        if not now < start <= now + horizon:
            continue
        said: dict[str, Any] = {"title": title, "start": start.isoformat(), "location": _text(event, "LOCATION")}
        if unknown_zone is not None:  # said with the signal, not read silently as the user's local time
            said["unknown_tzid"] = unknown_zone
        out.append(
            SignalIn(
                type="calendar_event_approaching",
                urgency_hint=_urgency(start - now),
                data=said,
                dedup_key=f"calendar:{uid}:{start.isoformat()}"[:256],
                expires_at=start,
            )
        )
    return out + _day_signals(reached, timed, all_day, now, zone)


def _unknown_tzids(calendar: Any) -> dict[str, str]:
    """Each event (by UID) whose start names a ``TZID`` the parser knew no zone for: the time came
    back without one, as a floating time would (read before expansion, which drops the name)."""
    unknown: dict[str, str] = {}
    for event in calendar.walk("VEVENT"):
        start = event.get("DTSTART")
        tzid = start.params.get("TZID") if start is not None else None
        if tzid and isinstance(start.dt, datetime) and start.dt.tzinfo is None:
            unknown[_text(event, "UID") or _text(event, "SUMMARY")] = str(tzid)
    return unknown


def _why(error: httpx.HTTPError) -> str:
    return f"{type(error).__name__}: {error}" if isinstance(error, BlockedAddress) else type(error).__name__


class ICalendarSource:
    """Reads the calendar each time it is collected: a local path, or an http(s) URL."""

    name = "icalendar"

    def __init__(
        self,
        location: str,
        *,
        horizon: timedelta = timedelta(hours=24),
        zone: tzinfo = UTC,
        http: httpx.AsyncClient | None = None,
        max_bytes: int = MAX_BYTES,
        days: bool = True,
    ):
        self._days = days
        self._location = location
        self._zone = zone
        self._horizon = horizon
        self._http = http
        self._max_bytes = max_bytes

    async def _read(self) -> bytes:
        if self._location.lower().startswith(("http://", "https://")):
            async with httpx.AsyncClient(timeout=10) if self._http is None else nullcontext(self._http) as client:
                try:
                    # a feed may redirect; each hop passes the client's transport (and its address
                    # checks, ``phronesis.outbound``) again
                    async with client.stream("GET", self._location, follow_redirects=True) as response:
                        if not response.is_success:
                            raise InvalidInputError(
                                "calendar", f"{self._location} answered HTTP {response.status_code}"
                            )
                        return await read_limited(response, self._max_bytes)
                except httpx.HTTPError as exc:
                    raise InvalidInputError("calendar", f"cannot fetch {self._location}: {_why(exc)}") from None
        path = Path(self._location).expanduser()
        try:
            if path.stat().st_size > MAX_BYTES:
                raise InvalidInputError("calendar", f"{path} is larger than {MAX_BYTES} bytes")
            return path.read_bytes()
        except OSError as exc:
            raise InvalidInputError("calendar", f"cannot read {path}: {exc.strerror}") from None

    async def collect(self, now: datetime) -> list[SignalIn]:
        data, horizon, where = await self._read(), self._horizon, self._location
        return signals_from_ics(data, now, horizon=horizon, zone=self._zone, where=where, days=self._days)
