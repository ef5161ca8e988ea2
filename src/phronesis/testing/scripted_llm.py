"""``ScriptedLLM``: a deterministic ``LLMProvider`` for tests, demos and benchmarks."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeAlias

from phronesis.exceptions import LLMResponseError
from phronesis.llm.types import LLMRequest, LLMResponse, TokenUsage

__all__ = ["ScriptedLLM"]

Step: TypeAlias = "str | LLMResponse | Exception"
Responder: TypeAlias = Callable[[LLMRequest], "Step | Awaitable[Step]"]


class ScriptedLLM:
    """Answers with the next step of ``script`` (text, a full response, or an exception
    to raise), or with whatever ``function(request)`` returns. Every request is kept in
    ``requests``. ``latency_s`` simulates a slow model without blocking the event loop.
    """

    __test__ = False

    def __init__(
        self,
        script: Sequence[Step] | Responder,
        *,
        model_name: str = "scripted",
        latency_s: float = 0.0,
        repeat_last: bool = False,
    ) -> None:
        self._function: Responder | None = None
        self._script: list[Step] = []
        if callable(script):
            self._function = script
        else:
            self._script = list(script)
        self._model_name = model_name
        self._latency_s = latency_s
        self._repeat_last = repeat_last
        self.requests: list[LLMRequest] = []

    @property
    def model_name(self) -> str:
        return self._model_name

    async def probe(self) -> None:
        """Always there (``llm.probe``): a script answers without a network."""

    async def _next_step(self, request: LLMRequest) -> Step:
        if self._function is not None:
            step = self._function(request)
            return await step if isinstance(step, Awaitable) else step
        if not self._script:
            raise LLMResponseError("ScriptedLLM: script exhausted")
        return self._script[0] if self._repeat_last and len(self._script) == 1 else self._script.pop(0)

    async def generate(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        if self._latency_s:
            await asyncio.sleep(self._latency_s)
        step = await self._next_step(request)
        if isinstance(step, Exception):
            raise step
        if isinstance(step, LLMResponse):
            return step
        return LLMResponse(
            text=step,
            model=self._model_name,
            latency_ms=self._latency_s * 1000,
            usage=TokenUsage(prompt_tokens=len(request.prompt.split()), completion_tokens=len(step.split())),
            finish_reason="stop",
        )
