"""Embedders behind one protocol: batch of texts in, unit-length float32 rows out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from phronesis.lazy import exports

if TYPE_CHECKING:
    from phronesis.embeddings.batcher import MicroBatchingEmbedder
    from phronesis.embeddings.cache import CachedEmbedder
    from phronesis.embeddings.hashing import HashingEmbedder
    from phronesis.embeddings.types import Embedder, Vectors, l2_normalize

__all__ = ["CachedEmbedder", "Embedder", "HashingEmbedder", "MicroBatchingEmbedder", "Vectors", "l2_normalize"]

__getattr__ = exports(
    __name__,
    {
        "CachedEmbedder": "phronesis.embeddings.cache",
        "Embedder": "phronesis.embeddings.types",
        "HashingEmbedder": "phronesis.embeddings.hashing",
        "MicroBatchingEmbedder": "phronesis.embeddings.batcher",
        "Vectors": "phronesis.embeddings.types",
        "l2_normalize": "phronesis.embeddings.types",
    },
)
