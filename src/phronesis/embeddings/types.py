"""The embedding seam: a batch of texts in, unit-length float32 rows out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["Embedder", "Vectors", "l2_normalize"]

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
