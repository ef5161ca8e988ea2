"""A lexical embedder by feature hashing: no model, no download, deterministic.

Not semantic (paraphrases do not match), so it is not the default. It exists for
tiny deployments, for tests that need fast deterministic vectors, and for benchmarks
that measure everything but the model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from phronesis.embeddings.types import Vectors, l2_normalize

__all__ = ["HashingEmbedder"]

_TOKEN = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    def __init__(self, dimension: int = 384) -> None:
        if dimension < 8:
            raise ValueError("hashing embedder needs at least 8 dimensions")
        self._dimension = dimension

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model_name(self) -> str:
        return f"hashing-{self._dimension}"

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            tokens = _TOKEN.findall(text.lower())
            # unigrams and bigrams, signed hashing to keep collisions unbiased
            features = tokens + [f"{a}_{b}" for a, b in zip(tokens, tokens[1:], strict=False)]
            for feature in features:
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                sign = 1.0 if value & 1 else -1.0
                out[row, (value >> 1) % self._dimension] += sign
        return l2_normalize(out)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return self.embed_sync(texts)
