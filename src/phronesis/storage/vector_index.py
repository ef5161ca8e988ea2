"""Nearest-neighbour search over unit vectors: the protocol and the exact implementation.

The store of record is the database; an index is rebuilt from it and is never the only
copy (ARCHITECTURE: Data). Scores are cosine similarities in [-1, 1].
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

import numpy as np

from phronesis.embeddings.types import Vectors

__all__ = ["Bytes", "ExactVectorIndex", "ReadBytes", "VectorIndex"]

Bytes = np.ndarray[Any, np.dtype[np.uint8]]
"""A partition's data as a snapshot stores it: one flat buffer, written and hashed without a copy."""
ReadBytes = Callable[[int], bytes]
"""Reads up to ``n`` more bytes of a partition's data (what a snapshot file gives back)."""

_QUERY_BLOCK = 256


class VectorIndex(Protocol):
    @property
    def dimension(self) -> int: ...

    def __len__(self) -> int: ...

    def __contains__(self, key: object) -> bool: ...

    def upsert(self, keys: Sequence[str], vectors: Vectors) -> None:
        """Insert or replace ``keys``' vectors (rows of unit length)."""
        ...

    def remove(self, key: str) -> bool:
        """Drop ``key``; False if it was not there."""
        ...

    def search(self, query: Vectors, k: int) -> list[tuple[str, float]]:
        """Up to ``k`` (key, cosine similarity) pairs, most similar first."""
        ...

    def search_many(self, queries: Vectors, k: int) -> list[list[tuple[str, float]]]:
        """``search`` for each row of ``queries``, in one pass over the index (a batch's runs)."""
        ...

    def items(self) -> Iterator[tuple[str, Vectors]]:
        """Every (key, vector) held, for rebuilding into another index."""
        ...

    def dump(self) -> tuple[list[str | None], Bytes]:
        """What a snapshot stores: the key of each slot (None: a free slot) and the data (bytes)."""
        ...

    def restore(self, slots: Sequence[str | None], read: ReadBytes) -> None:
        """Take back what ``dump`` gave, read through ``read(n)`` (streamed: a million-vector graph
        is not copied twice); raises ValueError or RuntimeError if it does not fit this index."""
        ...


class ExactVectorIndex:
    """Brute-force matrix product: exact, and fastest below a few tens of thousands of rows."""

    def __init__(self, dimension: int, *, initial_capacity: int = 256) -> None:
        self._dimension = dimension
        self._matrix = np.zeros((max(initial_capacity, 1), dimension), dtype=np.float32)
        self._keys: list[str] = []
        self._rows: dict[str, int] = {}

    @property
    def dimension(self) -> int:
        return self._dimension

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def _reserve(self, size: int) -> None:
        capacity = self._matrix.shape[0]
        if size <= capacity:
            return
        while capacity < size:
            capacity *= 2
        grown = np.zeros((capacity, self._dimension), dtype=np.float32)
        grown[: len(self._keys)] = self._matrix[: len(self._keys)]
        self._matrix = grown

    def upsert(self, keys: Sequence[str], vectors: Vectors) -> None:
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(keys), self._dimension)
        self._reserve(len(self._keys) + len(keys))
        for key, vector in zip(keys, vectors, strict=True):
            row = self._rows.get(key)
            if row is None:
                row = len(self._keys)
                self._keys.append(key)
                self._rows[key] = row
            self._matrix[row] = vector

    def remove(self, key: str) -> bool:
        row = self._rows.pop(key, None)
        if row is None:
            return False
        last = len(self._keys) - 1
        if row != last:  # move the last row into the hole so rows stay dense
            moved = self._keys[last]
            self._matrix[row] = self._matrix[last]
            self._keys[row] = moved
            self._rows[moved] = row
        self._keys.pop()
        return True

    def search(self, query: Vectors, k: int) -> list[tuple[str, float]]:
        return self.search_many(query, k)[0]

    def search_many(self, queries: Vectors, k: int) -> list[list[tuple[str, float]]]:
        queries = np.asarray(queries, dtype=np.float32).reshape(-1, self._dimension)
        size = len(self._keys)
        if size == 0 or k <= 0:
            return [[] for _ in queries]
        out = []
        # a block of queries at a time: one matrix product each, bounded memory (block x size scores)
        for start in range(0, len(queries), _QUERY_BLOCK):
            for scores in queries[start : start + _QUERY_BLOCK] @ self._matrix[:size].T:
                if k < size:
                    top = np.argpartition(-scores, k - 1)[:k]
                    top = top[np.argsort(-scores[top], kind="stable")]
                else:
                    top = np.argsort(-scores, kind="stable")
                out.append([(self._keys[i], float(scores[i])) for i in top])
        return out

    def items(self) -> Iterator[tuple[str, Vectors]]:
        for row, key in enumerate(self._keys):
            yield key, self._matrix[row]

    def dump(self) -> tuple[list[str | None], Bytes]:
        """The rows as float32 bytes and their keys, for a snapshot (``storage.index_snapshot``)."""
        return list(self._keys), self._matrix[: len(self._keys)].reshape(-1).view(np.uint8)

    def restore(self, slots: Sequence[str | None], read: ReadBytes) -> None:
        """Take back what ``dump`` gave, in place of what this index held."""
        keys = [key for key in slots if key is not None]
        matrix = np.frombuffer(read(len(keys) * self._dimension * 4), dtype=np.float32)
        if len(keys) != len(slots) or matrix.size != len(keys) * self._dimension:
            raise ValueError(f"{matrix.size} values for {len(slots)} keys of dimension {self._dimension}")
        self._matrix = np.zeros((max(len(keys), 1), self._dimension), dtype=np.float32)
        self._matrix[: len(keys)] = matrix.reshape(len(keys), self._dimension)
        self._keys = keys
        self._rows = {key: row for row, key in enumerate(keys)}
