"""An LLM with its own concurrency budget (seed 000: ``max_concurrent_llm = 3`` for the executive).

The provider's own semaphore (``llm.max_concurrency``) bounds the whole process; this one
bounds a single decision point, so a burst of executive events cannot take every slot.
"""

from __future__ import annotations

import asyncio

from phronesis.llm.types import LLMProvider, LLMRequest, LLMResponse

__all__ = ["ConcurrencyLimitedLLM"]


class ConcurrencyLimitedLLM:
    def __init__(self, inner: LLMProvider, max_concurrency: int) -> None:
        self.inner = inner
        self._semaphore = asyncio.Semaphore(max_concurrency)

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    async def generate(self, request: LLMRequest) -> LLMResponse:
        async with self._semaphore:
            return await self.inner.generate(request)
