"""Parse the spec strings that choose a provider, e.g. ``ollama:llama3.1``.

Shared by ``llm.registry`` and ``embeddings.registry`` so that both accept the same
grammar: ``KIND`` or ``KIND:MODEL`` or ``openai-compatible:BASE_URL#MODEL``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from phronesis.exceptions import ConfigurationError

__all__ = ["ProviderSpec", "parse_provider_spec"]


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    kind: str
    model: str
    base_url: str | None = None


def parse_provider_spec(text: str, *, setting: str, kinds: Collection[str]) -> ProviderSpec:
    """Split ``text``; an unknown kind or a missing model names ``setting`` in the error."""
    raw = text.strip()
    kind, _, rest = raw.partition(":")
    kind = kind.strip().lower()
    if kind not in kinds:
        raise ConfigurationError(
            f"{setting}={text!r}: unknown provider {kind!r}; expected one of {', '.join(sorted(kinds))}"
        )
    if kind == "openai-compatible":
        base_url, hash_, model = rest.rpartition("#")
        if not hash_ or not base_url.startswith(("http://", "https://")) or not model:
            raise ConfigurationError(f"{setting}={text!r}: expected openai-compatible:http(s)://HOST/v1#MODEL")
        return ProviderSpec(kind=kind, model=model.strip(), base_url=base_url.strip())
    return ProviderSpec(kind=kind, model=rest.strip())
