"""A hand-moved clock for tests of windows, retention and cooldowns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["FixedClock"]


class FixedClock:
    __test__ = False

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)
        if self._now.tzinfo is None:
            raise ValueError("FixedClock needs a timezone-aware start")
        self._monotonic = 0.0

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        return self._monotonic

    def advance(self, **delta: float) -> datetime:
        step = timedelta(**delta)
        self._now += step
        self._monotonic += step.total_seconds()
        return self._now
