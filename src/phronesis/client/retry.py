"""When a call is tried again: a 429 or 503 (the server said "not now"), or a connection that
could not be made (nothing was sent). Never a timeout on a request that was sent: a decision
may have been made and recorded, and making it twice is not the caller's wish."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

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

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after try number ``attempt`` (1-based) failed."""
        wanted = retry_after if retry_after is not None else self.backoff * 2 ** (attempt - 1)
        return min(max(wanted, 0.0), self.max_delay)
