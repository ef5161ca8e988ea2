"""POST JSON with retries: what the webhook and WhatsApp channels share.

Retried: connection errors, timeouts, 429 and 5xx, with exponential back-off. Not retried:
other 4xx (the request itself is wrong; retrying cannot help). Every attempt carries the
same ``Idempotency-Key`` so a receiver that saw a timed-out attempt can drop the repeat.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import httpx

from phronesis.proactive.channels.types import Delivery

__all__ = ["HttpPoster"]


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
        self._backoff = backoff_s
        self._sleep = sleep or asyncio.sleep

    async def post(self, url: str, body: bytes, headers: Mapping[str, str], *, format: str) -> Delivery:
        detail = ""
        for attempt in range(1, self._attempts + 1):
            try:
                response = await self._client.post(url, content=body, headers=dict(headers))
            except httpx.TimeoutException:
                detail = "timeout"
            except httpx.TransportError as exc:
                detail = f"transport error: {type(exc).__name__}"
            else:
                if response.is_success:
                    return Delivery("sent", f"HTTP {response.status_code}", attempt, format)
                detail = f"HTTP {response.status_code}: {response.text[:200]}"
                if response.status_code != 429 and response.status_code < 500:
                    return Delivery("failed", detail, attempt, format)
            if attempt < self._attempts:
                pause = self._sleep(self._backoff * 2 ** (attempt - 1))
                if asyncio.iscoroutine(pause):
                    await pause
        return Delivery("failed", detail, self._attempts, format)
