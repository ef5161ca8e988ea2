"""Retries, a concurrency limit and an overall timeout, wrapped around any provider.

Kept out of the providers (which set their SDK's own retries to 0) so that every
backend behaves the same: retry only what can succeed on a second try (timeouts,
connection errors, 429, 5xx), back off exponentially with jitter, and never hold a
concurrency slot while sleeping. Seed 000: at most 3 LLM calls at once.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from phronesis.backoff import Backoff
from phronesis.exceptions import LLMError, LLMTimeoutError
from phronesis.faults import Fault
from phronesis.llm.types import LLMProvider, LLMRequest, LLMResponse

__all__ = ["ResilientLLM", "RetryPolicy"]

log = logging.getLogger("phronesis.llm")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 2
    schedule: Backoff = Backoff(initial_s=0.5, cap_s=8.0, jitter=0.5)

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """The pause before retry number ``attempt`` (0-based): between half and all of the capped
        exponential delay."""
        return self.schedule.delay(attempt + 1, rng.random())


class ResilientLLM:
    """An ``LLMProvider`` that adds retries, a semaphore and a timeout to another one."""

    def __init__(
        self,
        inner: LLMProvider,
        *,
        retry: RetryPolicy | None = None,
        max_concurrency: int = 3,
        timeout_s: float = 60.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.inner = inner
        self._retry = retry or RetryPolicy()
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self._timeout_s = timeout_s
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.attempts = 0
        """Calls made to the inner provider, retries included (for metrics and tests)."""
        self.fault = Fault(f"LLM {inner.model_name}", log)
        """A dead LLM is logged once with its cause, and once when it answers again."""

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    async def generate(self, request: LLMRequest) -> LLMResponse:
        attempt = 0
        while True:
            try:
                async with self._semaphore:
                    self.attempts += 1
                    try:
                        response = await asyncio.wait_for(self.inner.generate(request), self._timeout_s)
                    except TimeoutError as exc:
                        raise LLMTimeoutError(f"{self.model_name} did not answer within {self._timeout_s:g} s") from exc
                self.fault.recovered()
                return response
            except LLMError as exc:
                if not exc.retryable or attempt >= self._retry.max_retries:
                    self.fault.failed(exc, action=f"after {attempt + 1} attempts")
                    raise
                await self._sleep(self._retry.backoff(attempt, self._rng))
                attempt += 1
