"""The LLM's settings section (``PHRONESIS_LLM__*``)."""

from __future__ import annotations

from pydantic import Field, SecretStr

from phronesis.schema import Schema
from phronesis.settings_parts import PositiveSeconds

__all__ = ["LLMSettings"]


class LLMSettings(Schema):
    spec: str = "none"
    """``none``, ``openai:MODEL``, ``ollama:MODEL``, ``anthropic:MODEL``,
    ``openai-compatible:BASE_URL#MODEL``. No LLM unless one is named: no silent network default."""
    api_key: SecretStr | None = None
    base_url: str | None = None
    timeout_s: PositiveSeconds = 60.0  # GLADyS OllamaProvider: 60 s
    max_retries: int = Field(default=2, ge=0, le=10)
    backoff_initial_s: float = Field(default=0.5, ge=0.0, le=60.0)
    backoff_max_s: float = Field(default=8.0, ge=0.0, le=600.0)
    max_concurrency: int = Field(default=3, ge=1, le=1024)  # seed 000: max_concurrent_llm = 3
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_output_tokens: int = Field(default=1024, ge=1, le=200_000)
