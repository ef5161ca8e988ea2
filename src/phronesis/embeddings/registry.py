"""Turn ``settings.embeddings`` into an embedder: model, then micro-batcher, then LRU cache."""

from __future__ import annotations

from phronesis.embeddings.batcher import MicroBatchingEmbedder
from phronesis.embeddings.cache import CachedEmbedder
from phronesis.embeddings.settings import EmbeddingSettings
from phronesis.embeddings.types import Embedder
from phronesis.exceptions import ConfigurationError
from phronesis.provider_spec import parse_provider_spec

__all__ = ["build_embedder", "build_base_embedder"]

_KINDS = ("local", "hashing", "openai", "ollama", "openai-compatible")
_DEFAULT_BASE_URLS = {"openai": "https://api.openai.com/v1", "ollama": "http://127.0.0.1:11434/v1"}
_KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "nomic-embed-text": 768,
    "all-minilm": 384,
}


def build_base_embedder(settings: EmbeddingSettings) -> Embedder:
    """The model itself, without batching or caching."""
    setting = "PHRONESIS_EMBEDDINGS__SPEC"
    spec = parse_provider_spec(settings.spec, setting=setting, kinds=_KINDS)
    if spec.kind == "local":
        from phronesis.embeddings.local import LocalSentenceEmbedder
        from phronesis.embeddings.minilm import MODEL_NAME

        if spec.model and spec.model != MODEL_NAME:
            raise ConfigurationError(f"{setting}: only local:{MODEL_NAME} ships offline")
        return LocalSentenceEmbedder(
            device=settings.device,
            batch_size=settings.batch_max_size,
            precision=settings.precision,
            runtime=settings.runtime,
            onnx_dir=settings.onnx_dir,
        )
    if spec.kind == "hashing":
        from phronesis.embeddings.hashing import HashingEmbedder

        try:
            hashing_dimension = int(spec.model or 384)
        except ValueError:
            raise ConfigurationError(f"{setting}: hashing:DIMENSION needs an integer") from None
        return HashingEmbedder(hashing_dimension)

    from phronesis.embeddings.openai_compatible import OpenAICompatibleEmbedder

    model, _, dim_text = spec.model.partition("@")
    dimension = int(dim_text) if dim_text.isdigit() else _KNOWN_DIMENSIONS.get(model)
    if dimension is None:
        raise ConfigurationError(f"{setting}: unknown dimension for {model!r}; write it as MODEL@DIM")
    base_url = spec.base_url or settings.base_url or _DEFAULT_BASE_URLS.get(spec.kind)
    if base_url is None:  # pragma: no cover - parse_provider_spec requires it for openai-compatible
        raise ConfigurationError(f"{setting}: a base URL is required")
    return OpenAICompatibleEmbedder(
        model,
        base_url=base_url,
        dimension=dimension,
        api_key=settings.api_key.get_secret_value() if settings.api_key else None,
        timeout_s=settings.timeout_s,
    )


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    batched = MicroBatchingEmbedder(
        build_base_embedder(settings),
        max_batch_size=settings.batch_max_size,
        max_wait_ms=settings.batch_max_wait_ms,
    )
    return CachedEmbedder(batched, max_entries=settings.cache_size)
