"""When a call is tried again: a 429 or 503 (the server said "not now"), or a connection that
could not be made (nothing was sent). Never a timeout on a request that was sent: a decision
may have been made and recorded, and making it twice is not the caller's wish."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from phronesis.backoff import Backoff
from phronesis.client.errors import TransportFailed, retry_after

__all__ = ["RetryPolicy"]

NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout)
"""Transport errors where the request surely never reached the server."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 3
    """Tries in all (1: never retry)."""
    statuses: frozenset[int] = frozenset({429, 503})
    backoff: float = 0.5
    """Without ``Retry-After``: backoff × 2^(try − 1) seconds."""
    max_delay: float = 30.0
    """The longest wait, whatever ``Retry-After`` says."""

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("RetryPolicy.attempts must be at least 1")

    def delay(self, attempt: int, asked: float | None) -> float:
        """Seconds to wait after try number ``attempt`` (1-based) failed (``asked``: Retry-After)."""
        if asked is None:
            return Backoff(initial_s=self.backoff, cap_s=self.max_delay, jitter=0.0).delay(attempt)
        return min(max(asked, 0.0), self.max_delay)

    def after_response(self, attempt: int, response: httpx.Response) -> float | None:
        """Seconds to wait before trying again after ``response``, or None: it is the answer."""
        if response.status_code in self.statuses and attempt < self.attempts:
            return self.delay(attempt, retry_after(response))
        return None

    def after_error(self, attempt: int, error: httpx.TransportError, what: str) -> float:
        """Seconds to wait before trying again after ``error``; raises ``TransportFailed`` where
        it is not tried again (the last try, or a request that was sent and may have been acted on)."""
        if isinstance(error, httpx.UnsupportedProtocol):  # no request was made: nothing to retry or fear
            raise TransportFailed(f"{what}: not sent: {error}") from error
        if not isinstance(error, NOT_SENT):
            raise TransportFailed(f"{what}: sent, but no answer: {error!r}") from error
        if attempt >= self.attempts:
            raise TransportFailed(f"{what}: could not connect (not sent): {error}") from error
        return self.delay(attempt, None)
