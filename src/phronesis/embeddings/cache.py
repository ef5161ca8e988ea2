"""An in-process LRU cache of embeddings keyed by exact text.

Agents repeat themselves (the same event text, the same query): a hit costs a dict
lookup instead of a forward pass.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from phronesis.embeddings.types import Embedder, Vectors
from phronesis.embeddings.wrapper import EmbedderWrapper

__all__ = ["CachedEmbedder"]


class CachedEmbedder(EmbedderWrapper):
    def __init__(self, inner: Embedder, *, max_entries: int = 10_000) -> None:
        super().__init__(inner)
        self._max_entries = max_entries
        self._entries: OrderedDict[str, Vectors] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        for i, text in enumerate(texts):
            cached = self._entries.get(text)
            if cached is None:
                missing.setdefault(text, []).append(i)
            else:
                self._entries.move_to_end(text)
                out[i] = cached
        self.hits += len(texts) - sum(len(rows) for rows in missing.values())
        self.misses += len(missing)
        if missing:
            unique = list(missing)
            vectors = await self.inner.embed(unique)
            for text, vector in zip(unique, vectors, strict=True):
                out[missing[text]] = vector
                self._remember(text, vector)
        return out

    def _remember(self, text: str, vector: Vectors) -> None:
        if self._max_entries <= 0:
            return
        self._entries[text] = vector.copy()
        self._entries.move_to_end(text)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
