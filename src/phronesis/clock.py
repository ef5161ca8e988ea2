"""Time comes from an injected clock so that windows, retention and cooldowns are testable.

All datetimes phronesis stores are timezone-aware UTC (ARCHITECTURE: Data).
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Annotated, Protocol

from pydantic import AfterValidator, AwareDatetime, BeforeValidator

__all__ = ["AwareInstant", "Clock", "Instant", "SystemClock", "ensure_utc", "to_utc"]


class Clock(Protocol):
    """Wall-clock time for records plus a monotonic clock for measuring latency."""

    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin that never goes backwards."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.perf_counter()


def ensure_utc(value: datetime) -> datetime:
    """Attach UTC to naive datetimes read back from SQLite (which drops the offset)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def to_utc(value: datetime) -> datetime:
    """``ensure_utc`` for a time given by a user: one UTC cannot hold (year 1 at a positive
    offset, year 9999 at a negative one) is a ValueError naming the problem, so the API answers
    422 for the field instead of failing at the database (found by the OpenAPI fuzz test)."""
    try:
        return ensure_utc(value)
    except OverflowError as exc:
        raise ValueError("the time is out of range once converted to UTC") from exc


def written_time(value: object) -> object:
    """Times come written out (ISO 8601): pydantic would read a number, or a string of digits, as
    seconds since 1970, so a mistyped ``"at": 12345`` was a time in 1970 instead of a 422."""
    if isinstance(value, bool | int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value.strip())):
        raise ValueError("give a time in ISO 8601, e.g. 2026-11-28T09:00:00+08:00, not a number")
    return value


_NUMBER = re.compile(r"[-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?")

Instant = Annotated[datetime, BeforeValidator(written_time), AfterValidator(to_utc)]
"""A datetime from outside (a query parameter, a request body), in UTC; naive means UTC."""
AwareInstant = Annotated[AwareDatetime, BeforeValidator(written_time), AfterValidator(to_utc)]
"""The same, where the offset must be given."""
