"""Capped exponential backoff with jitter: one schedule for every retry in phronesis (LLM calls,
background loops), so N workers retrying the same dependency do not retry in lockstep."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Backoff"]


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long to wait before retrying after the ``failures``-th failure in a row."""

    initial_s: float = 1.0
    cap_s: float = 60.0
    jitter: float = 0.2
    """Each delay is the capped exponential one scaled by a random factor in [1 - jitter, 1]."""

    def delay(self, failures: int, unit: float) -> float:
        """``unit`` is a random number in [0, 1) (``random.random()``)."""
        base = min(self.cap_s, self.initial_s * float(2 ** min(max(failures - 1, 0), 32)))
        return base * (1 - self.jitter * unit)
