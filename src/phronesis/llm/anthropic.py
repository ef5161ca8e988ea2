"""Claude over Anthropic's Messages API, through the official ``anthropic`` SDK."""

from __future__ import annotations

import time
from typing import Any

from phronesis.exceptions import LLMResponseError
from phronesis.llm.guard import check_remote_call_allowed
from phronesis.llm.sdk_errors import import_sdk, translate_sdk_error
from phronesis.llm.types import LLMRequest, LLMResponse, TokenUsage

__all__ = ["AnthropicProvider"]

DEFAULT_BASE_URL = "https://api.anthropic.com"


class AnthropicProvider:
    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 60.0,
        max_output_tokens: int = 1024,
        temperature: float | None = None,
    ) -> None:
        anthropic = self._sdk = import_sdk("anthropic", "anthropic")
        self._model = model
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._max_output_tokens = max_output_tokens
        self._temperature = temperature
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=self.base_url, timeout=timeout_s, max_retries=0
        )

    @property
    def model_name(self) -> str:
        return self._model

    async def probe(self) -> None:
        """List one model: free, and fails the way a message would (``llm.probe``)."""
        anthropic = self._sdk
        check_remote_call_allowed(self.base_url, "LLM")
        try:
            await self._client.models.list(limit=1)
        except anthropic.AnthropicError as exc:
            raise translate_sdk_error(anthropic, exc, f"LLM {self._model}") from exc

    async def generate(self, request: LLMRequest) -> LLMResponse:
        anthropic = self._sdk
        check_remote_call_allowed(self.base_url, "LLM")
        kwargs: dict[str, Any] = {
            "model": self._model,
            "max_tokens": request.max_tokens or self._max_output_tokens,
            "messages": [{"role": "user", "content": request.prompt}],
        }
        if request.system_prompt:
            kwargs["system"] = request.system_prompt
        temperature = request.temperature if request.temperature is not None else self._temperature
        if temperature is not None:
            kwargs["temperature"] = temperature
        started = time.perf_counter()
        try:
            message = await self._client.messages.create(**kwargs)
        except anthropic.AnthropicError as exc:
            raise translate_sdk_error(anthropic, exc, f"LLM {self._model}") from exc
        latency_ms = (time.perf_counter() - started) * 1000
        if getattr(message, "stop_reason", None) == "refusal":
            error = LLMResponseError(f"LLM {self._model} refused to answer")
            error.reason = "llm_refusal"
            raise error
        text = "".join(getattr(block, "text", "") for block in message.content if getattr(block, "type", "") == "text")
        if not text.strip():
            raise LLMResponseError(f"LLM {self._model}: empty answer")
        usage = message.usage
        return LLMResponse(
            text=text,
            model=str(message.model),
            latency_ms=latency_ms,
            usage=TokenUsage(
                prompt_tokens=int(usage.input_tokens or 0),
                completion_tokens=int(usage.output_tokens or 0),
            ),
            finish_reason=message.stop_reason,
            raw_response=message.model_dump(),
        )
