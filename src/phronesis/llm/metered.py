"""An LLM that counts the requests sent through it: what a decision record's ``llm_calls`` says.

A decision counts its own calls rather than the A/B report estimating them from its path (two on
the LLM path), so a failed prediction, a structured-output retry or a fallback after one failed
call are each what they were.
"""

from __future__ import annotations

from phronesis.llm.types import LLMProvider, LLMRequest, LLMResponse

__all__ = ["MeteredLLM"]


class MeteredLLM:
    def __init__(self, inner: LLMProvider) -> None:
        self.inner = inner
        self.calls = 0
        """Requests sent, answered or not."""

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    async def generate(self, request: LLMRequest) -> LLMResponse:
        self.calls += 1
        return await self.inner.generate(request)
