"""Chat completions over the OpenAI wire format: OpenAI, Ollama, vLLM, llama.cpp, LM Studio.

Uses the official ``openai`` SDK with its own retries turned off; ``ResilientLLM``
does retries for every backend alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from phronesis.exceptions import LLMResponseError
from phronesis.llm.guard import check_remote_call_allowed
from phronesis.llm.sdk_errors import import_sdk, translate_sdk_error
from phronesis.llm.types import LLMRequest, LLMResponse, TokenUsage

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAICompatibleProvider"]


class OpenAICompatibleProvider:
    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        max_output_tokens: int = 1024,
        temperature: float | None = None,
        json_mode: bool = True,
    ) -> None:
        openai = self._sdk = import_sdk("openai", "openai")
        self._model = model
        self.base_url = base_url.rstrip("/")
        self._max_output_tokens = max_output_tokens
        self._temperature = temperature
        self._json_mode = json_mode
        # Local servers ignore the key but the SDK insists on one.
        self._client: AsyncOpenAI = openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key=api_key or "not-needed",
            timeout=timeout_s,
            max_retries=0,
        )

    @property
    def model_name(self) -> str:
        return self._model

    async def probe(self) -> None:
        """List the server's models: free, and fails the way a completion would (``llm.probe``)."""
        openai = self._sdk
        check_remote_call_allowed(self.base_url, "LLM")
        try:
            await self._client.models.list()
        except openai.OpenAIError as exc:
            raise translate_sdk_error(openai, exc, f"LLM {self._model}") from exc

    async def generate(self, request: LLMRequest) -> LLMResponse:
        openai = self._sdk
        check_remote_call_allowed(self.base_url, "LLM")
        messages: list[dict[str, str]] = []
        if request.system_prompt:
            messages.append({"role": "system", "content": request.system_prompt})
        messages.append({"role": "user", "content": request.prompt})
        kwargs: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "max_tokens": request.max_tokens or self._max_output_tokens,
        }
        temperature = request.temperature if request.temperature is not None else self._temperature
        if temperature is not None:
            kwargs["temperature"] = temperature
        if request.format == "json" and self._json_mode:
            kwargs["response_format"] = {"type": "json_object"}

        import time

        started = time.perf_counter()
        try:
            completion = await self._client.chat.completions.create(**kwargs)
        except openai.OpenAIError as exc:
            raise translate_sdk_error(openai, exc, f"LLM {self._model}") from exc
        except ValueError as exc:  # a body that is not JSON at all
            raise LLMResponseError(f"LLM {self._model}: unparseable response body") from exc
        latency_ms = (time.perf_counter() - started) * 1000
        return self._to_response(completion, latency_ms)

    def _to_response(self, completion: Any, latency_ms: float) -> LLMResponse:
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise LLMResponseError(f"LLM {self._model}: response has no choices")
        message = choices[0].message
        refusal = getattr(message, "refusal", None)
        if refusal:
            error = LLMResponseError(f"LLM {self._model} refused: {str(refusal)[:200]}")
            error.reason = "llm_refusal"
            raise error
        text = message.content
        if not isinstance(text, str) or not text.strip():
            raise LLMResponseError(f"LLM {self._model}: empty answer")
        usage = getattr(completion, "usage", None)
        return LLMResponse(
            text=text,
            model=str(getattr(completion, "model", None) or self._model),
            latency_ms=latency_ms,
            usage=TokenUsage(
                prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            ),
            finish_reason=choices[0].finish_reason,
            raw_response=completion.model_dump() if hasattr(completion, "model_dump") else None,
        )
