"""POST JSON with retries: what the webhook and WhatsApp channels share.

Retried: connection errors, timeouts, 429 and 5xx, with exponential back-off; when they all
fail the delivery is ``retryable`` (the outbox tries again later). Not retried: other 4xx (the
request itself is wrong; retrying cannot help). Every attempt carries the
same ``Idempotency-Key`` so a receiver that saw a timed-out attempt can drop the repeat.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping

import httpx

from phronesis.backoff import Backoff
from phronesis.outbound import BlockedAddress, read_head
from phronesis.proactive.channels.types import Delivery

__all__ = ["HttpPoster"]

_ERROR_BYTES = 2048
"""How much of a receiver's answer is read: its status and the start of an error message."""


class HttpPoster:
    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        attempts: int,
        backoff_s: float = 0.5,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        self._client = client
        self._attempts = attempts
        self._backoff = Backoff(initial_s=backoff_s, cap_s=math.inf, jitter=0.0)  # no cap: ``attempts`` bounds it
        self._sleep = sleep or asyncio.sleep

    async def post(self, url: str, body: bytes, headers: Mapping[str, str], *, format: str) -> Delivery:
        detail = ""
        for attempt in range(1, self._attempts + 1):
            try:
                async with self._client.stream("POST", url, content=body, headers=dict(headers)) as response:
                    head, _ = await read_head(response, _ERROR_BYTES)  # never the whole of a large answer
            except BlockedAddress as exc:  # a refused address stays refused: no retry
                return Delivery("failed", f"refused: {exc}", attempt, format)
            except httpx.TimeoutException:
                detail = "timeout"
            except httpx.TransportError as exc:
                detail = f"transport error: {type(exc).__name__}"
            else:
                if response.is_success:
                    return Delivery("sent", f"HTTP {response.status_code}", attempt, format)
                detail = f"HTTP {response.status_code}: {head.decode('utf-8', 'replace')[:200]}"
                if response.status_code != 429 and response.status_code < 500:
                    return Delivery("failed", detail, attempt, format)
            if attempt < self._attempts:
                pause = self._sleep(self._backoff.delay(attempt))
                if asyncio.iscoroutine(pause):
                    await pause
        return Delivery("failed", detail, self._attempts, format, retryable=True)
