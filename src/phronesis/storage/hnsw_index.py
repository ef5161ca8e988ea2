"""Approximate search with HNSW, from ``usearch`` (maintained, SIMD, supports removal).

Used for partitions too large for exact search. Keys are mapped to usearch's integer
labels here; a replaced vector gets a fresh label so no stale graph node can answer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from phronesis.embeddings.types import Vectors

__all__ = ["HnswVectorIndex"]


class HnswVectorIndex:
    def __init__(
        self,
        dimension: int,
        *,
        connectivity: int = 16,
        expansion_add: int = 128,
        expansion_search: int = 128,
    ) -> None:
        from usearch.index import Index

        self._dimension = dimension
        self._index = Index(
            ndim=dimension,
            metric="cos",
            dtype="f32",
            connectivity=connectivity,
            expansion_add=expansion_add,
            expansion_search=expansion_search,
        )
        self._labels: dict[str, int] = {}
        self._keys: dict[int, str] = {}
        self._next_label = 0

    @property
    def dimension(self) -> int:
        return self._dimension

    def __len__(self) -> int:
        return len(self._labels)

    def __contains__(self, key: object) -> bool:
        return key in self._labels

    def upsert(self, keys: Sequence[str], vectors: Vectors) -> None:
        if not keys:
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(keys), self._dimension)
        labels = np.arange(self._next_label, self._next_label + len(keys), dtype=np.uint64)
        self._next_label += len(keys)
        for key, label in zip(keys, labels, strict=True):
            self.remove(key)
            self._labels[key] = int(label)
            self._keys[int(label)] = key
        self._index.add(labels, vectors)

    def remove(self, key: str) -> bool:
        label = self._labels.pop(key, None)
        if label is None:
            return False
        del self._keys[label]
        self._index.remove(label)
        return True

    def search(self, query: Vectors, k: int) -> list[tuple[str, float]]:
        if not self._labels or k <= 0:
            return []
        matches = self._index.search(np.asarray(query, dtype=np.float32).reshape(-1), min(k, len(self)))
        out: list[tuple[str, float]] = []
        for label, distance in zip(matches.keys, matches.distances, strict=True):
            key = self._keys.get(int(label))
            if key is not None:
                out.append((key, 1.0 - float(distance)))
        return out

    def items(self) -> Iterator[tuple[str, Vectors]]:
        for key, label in list(self._labels.items()):
            yield key, np.asarray(self._index.get(label), dtype=np.float32)

    def memory_bytes(self) -> int:
        return int(self._index.memory_usage)
