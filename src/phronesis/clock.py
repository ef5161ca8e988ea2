"""Time comes from an injected clock so that windows, retention and cooldowns are testable.

All datetimes phronesis stores are timezone-aware UTC (ARCHITECTURE: Data).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol

__all__ = ["Clock", "SystemClock", "ensure_utc"]


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
