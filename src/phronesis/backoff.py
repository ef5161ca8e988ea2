"""Capped exponential backoff with jitter: one schedule for every retry in phronesis (LLM calls,
background loops, webhook and WhatsApp posts, the outbox's redeliveries, the HTTP client), so N
workers retrying the same dependency do not retry in lockstep, and a change to how phronesis
backs off is one change."""

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

    def delay(self, failures: int, unit: float = 0.0) -> float:
        """``unit`` is a random number in [0, 1) (``random.random()``); 0 (no jitter drawn) waits the
        whole capped delay, where a schedule must be exact (the outbox's due times, a client's tries)."""
        base = min(self.cap_s, self.initial_s * float(2 ** min(max(failures - 1, 0), 32)))
        return base * (1 - self.jitter * unit)
