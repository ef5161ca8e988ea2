"""An LLM that counts the requests sent through it: what a decision record's ``llm_calls`` says.

The A/B report used to estimate calls from a decision's path (two on the LLM path); a decision
now counts its own, so a failed prediction, a structured-output retry or a fallback after one
failed call are each what they were (issue 21).
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
