"""The embedding seam: a batch of texts in, unit-length float32 rows out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["EMBED_CHUNK", "Embedder", "Vectors", "embed_in_chunks", "is_stale", "l2_normalize"]

Vectors = npt.NDArray[np.float32]
"""Shape (n, dimension), float32, each row of unit length (so dot product = cosine)."""


@runtime_checkable
class Embedder(Protocol):
    @property
    def dimension(self) -> int: ...

    @property
    def model_name(self) -> str: ...

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` in order; raises ``EmbeddingError`` on failure."""
        ...


def l2_normalize(vectors: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit length; an all-zero row stays zero instead of becoming NaN."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array[None, :]
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(array / norms, dtype=np.float32)


EMBED_CHUNK = 256
"""Texts per ``embed`` call when a caller has many: bounded memory and request size."""


async def embed_in_chunks(embedder: Embedder, texts: Sequence[str], *, chunk: int = EMBED_CHUNK) -> Vectors:
    """Embed any number of texts, ``chunk`` per call, in order."""
    parts = [await embedder.embed(texts[start : start + chunk]) for start in range(0, len(texts), chunk)]
    return np.concatenate(parts) if parts else np.zeros((0, embedder.dimension), dtype=np.float32)


def is_stale(vector: Vectors | None, model_name: str | None, embedder: Embedder) -> bool:
    """A stored embedding that must be recomputed: missing, or made by another model or dimension."""
    return vector is None or model_name != embedder.model_name or vector.shape[-1] != embedder.dimension
