"""Embedders behind one protocol: batch of texts in, unit-length float32 rows out."""

from phronesis.embeddings.batcher import MicroBatchingEmbedder
from phronesis.embeddings.cache import CachedEmbedder
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.embeddings.types import Embedder, Vectors, l2_normalize

__all__ = ["CachedEmbedder", "Embedder", "HashingEmbedder", "MicroBatchingEmbedder", "Vectors", "l2_normalize"]
