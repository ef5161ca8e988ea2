"""An in-process LRU cache of embeddings keyed by tenant and exact text.

Agents repeat themselves (the same event text, the same query): a hit costs a dict
lookup instead of a forward pass. Each tenant has entries of its own: with one cache for all,
a hit's speed would tell tenant B whether tenant A had sent a text (9.7 ms against 334 ms, every time).
The tenant is the request's (``cache_scope``, set where a request's tenant is resolved: the API,
the dashboard, MCP); work with no request behind it shares the empty scope.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from contextvars import ContextVar

import numpy as np

from phronesis.embeddings.types import Embedder, Vectors
from phronesis.embeddings.wrapper import EmbedderWrapper

__all__ = ["CachedEmbedder", "cache_scope"]

_SCOPE: ContextVar[str] = ContextVar("phronesis_embedding_cache_scope", default="")


def cache_scope(tenant: str) -> str:
    """Embeddings computed from here on in this request (this context) are cached for ``tenant``
    alone; returns the tenant, so a resolver can hand it on."""
    _SCOPE.set(tenant)
    return tenant


class CachedEmbedder(EmbedderWrapper):
    def __init__(self, inner: Embedder, *, max_entries: int = 10_000) -> None:
        super().__init__(inner)
        self._max_entries = max_entries
        self._entries: OrderedDict[tuple[str, str], Vectors] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        scope = _SCOPE.get()
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        for i, text in enumerate(texts):
            cached = self._entries.get((scope, text))
            if cached is None:
                missing.setdefault(text, []).append(i)
            else:
                self._entries.move_to_end((scope, text))
                out[i] = cached
        self.hits += len(texts) - sum(len(rows) for rows in missing.values())
        self.misses += len(missing)
        if missing:
            unique = list(missing)
            vectors = await self.inner.embed(unique)
            for text, vector in zip(unique, vectors, strict=True):
                out[missing[text]] = vector
                self._remember((scope, text), vector)
        return out

    def _remember(self, key: tuple[str, str], vector: Vectors) -> None:
        if self._max_entries <= 0:
            return
        self._entries[key] = vector.copy()
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
