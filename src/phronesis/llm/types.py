"""The LLM seam: one request type, one response type, one required method.

Shapes follow seed 000's ``LLMRequest`` / ``LLMResponse`` / ``LLMProvider``. The one
departure: ``generate`` raises a typed ``LLMError`` instead of returning ``None``, so a
decision point can record *why* it took its fallback (timeout, 5xx, refusal …).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = ["LLMProvider", "LLMRequest", "LLMResponse", "TokenUsage"]


@dataclass(frozen=True, slots=True)
class LLMRequest:
    prompt: str
    system_prompt: str | None = None
    format: Literal["json"] | None = None
    """``"json"`` asks the backend for a JSON object where it supports it (seed: ``format="json"``)."""
    max_tokens: int | None = None
    temperature: float | None = None


@dataclass(frozen=True, slots=True)
class TokenUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class LLMResponse:
    text: str
    model: str
    latency_ms: float
    usage: TokenUsage = field(default_factory=TokenUsage)
    finish_reason: str | None = None
    raw_response: Any = None

    @property
    def tokens_used(self) -> int:
        """Seed 000's ``tokens_used``: prompt plus completion tokens."""
        return self.usage.total_tokens


@runtime_checkable
class LLMProvider(Protocol):
    """Anything that can answer an ``LLMRequest``.

    Implementations raise ``phronesis.exceptions.LLMError`` subclasses on failure and
    never return a partial or empty response as if it were an answer.
    """

    @property
    def model_name(self) -> str: ...

    async def generate(self, request: LLMRequest) -> LLMResponse: ...
