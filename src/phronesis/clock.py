"""Time comes from an injected clock so that windows, retention and cooldowns are testable.

All datetimes phronesis stores are timezone-aware UTC (ARCHITECTURE: Data).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Annotated, Protocol

from pydantic import AfterValidator, AwareDatetime

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


Instant = Annotated[datetime, AfterValidator(to_utc)]
"""A datetime from outside (a query parameter, a request body), in UTC; naive means UTC."""
AwareInstant = Annotated[AwareDatetime, AfterValidator(to_utc)]
"""The same, where the offset must be given."""
