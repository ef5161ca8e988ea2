"""Turn ``settings.llm`` into a provider, once, at the edge (ARCHITECTURE: providers).

``none`` means no LLM: every decision point then takes its documented fallback.
Backends are imported lazily so an uninstalled SDK only matters if it is chosen.
"""

from __future__ import annotations

from collections.abc import Callable

from phronesis.backoff import Backoff
from phronesis.exceptions import ConfigurationError
from phronesis.llm.resilient import ResilientLLM, RetryPolicy
from phronesis.llm.settings import LLMSettings
from phronesis.llm.types import LLMProvider
from phronesis.provider_spec import ProviderSpec, parse_provider_spec

__all__ = ["build_llm"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1"


def _openai_like(default_base_url: str | None) -> Callable[[ProviderSpec, LLMSettings], LLMProvider]:
    def build(spec: ProviderSpec, settings: LLMSettings) -> LLMProvider:
        from phronesis.llm.openai_compatible import OpenAICompatibleProvider

        base_url = spec.base_url or settings.base_url or default_base_url
        if base_url is None:  # pragma: no cover - every kind above has a default
            raise ConfigurationError("PHRONESIS_LLM__BASE_URL is required")
        return OpenAICompatibleProvider(
            spec.model,
            base_url=base_url,
            api_key=settings.api_key.get_secret_value() if settings.api_key else None,
            timeout_s=settings.timeout_s,
            max_output_tokens=settings.max_output_tokens,
            temperature=settings.temperature,
        )

    return build


def _anthropic(spec: ProviderSpec, settings: LLMSettings) -> LLMProvider:
    from phronesis.llm.anthropic import AnthropicProvider

    return AnthropicProvider(
        spec.model,
        api_key=settings.api_key.get_secret_value() if settings.api_key else None,
        base_url=settings.base_url,
        timeout_s=settings.timeout_s,
        max_output_tokens=settings.max_output_tokens,
        temperature=settings.temperature,
    )


_BUILDERS: dict[str, Callable[[ProviderSpec, LLMSettings], LLMProvider]] = {
    "openai": _openai_like(OPENAI_BASE_URL),
    "ollama": _openai_like(OLLAMA_BASE_URL),
    "openai-compatible": _openai_like(None),
    "anthropic": _anthropic,
}


def build_llm(settings: LLMSettings) -> LLMProvider | None:
    """The configured provider wrapped in retries and a concurrency limit, or None for ``none``."""
    if settings.spec.strip().lower() == "none":
        return None
    spec = parse_provider_spec(settings.spec, setting="PHRONESIS_LLM__SPEC", kinds=_BUILDERS)
    if not spec.model:
        raise ConfigurationError(f"PHRONESIS_LLM__SPEC={settings.spec!r}: a model name is required")
    if spec.kind == "anthropic" and settings.api_key is None:
        raise ConfigurationError("PHRONESIS_LLM__API_KEY is required for anthropic")
    if spec.kind == "openai" and settings.api_key is None:
        raise ConfigurationError("PHRONESIS_LLM__API_KEY is required for openai")
    return ResilientLLM(
        _BUILDERS[spec.kind](spec, settings),
        retry=RetryPolicy(
            max_retries=settings.max_retries,
            schedule=Backoff(initial_s=settings.backoff_initial_s, cap_s=settings.backoff_max_s, jitter=0.5),
        ),
        max_concurrency=settings.max_concurrency,
        timeout_s=settings.timeout_s,
    )
