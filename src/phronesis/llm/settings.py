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
    """The provider's API key (openai, anthropic; an openai-compatible server that wants one). Never logged."""
    base_url: str | None = None
    """The provider's endpoint where it is not the spec's own (a proxy, an Azure or self-hosted gateway)."""
    timeout_s: PositiveSeconds = 60.0  # GLADyS OllamaProvider: 60 s
    """How long one LLM request may take before it counts as failed (then retried, then the decision's fallback)."""
    max_retries: int = Field(default=2, ge=0, le=10)
    """Retries of a failed LLM request (a timeout, a 5xx, a rate limit), with capped exponential backoff."""
    backoff_initial_s: float = Field(default=0.5, ge=0.0, le=60.0)
    """The first retry's wait; each next one doubles it, with jitter, up to ``backoff_max_s``."""
    backoff_max_s: float = Field(default=8.0, ge=0.0, le=600.0)
    """The longest wait between two retries."""
    max_concurrency: int = Field(default=3, ge=1, le=1024)  # seed 000: max_concurrent_llm = 3
    """LLM requests in flight at once from this process; the rest wait their turn."""
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    """Sampling temperature sent with every request; None: each decision point's own."""
    max_output_tokens: int = Field(default=1024, ge=1, le=200_000)
    """The most tokens one answer may have."""
