"""Approximate search with HNSW from ``faiss-cpu`` (Meta; maintained, SIMD, OpenMP builds).

Chosen over usearch after measuring both here: on 384-d sentence-like vectors faiss
answered at about half usearch's latency for the same recall, and built twice as fast
(measured with benchmarks/bench_heuristics.py; usearch issue #439 reports the same gap on SIFT1M).

faiss's HNSW cannot delete, so removal is a tombstone: the slot's bit is cleared in a
bitmap that every search passes as an ID selector, so a removed or replaced vector is
never returned and top-k is still k live results. Once tombstones pass
``compact_ratio`` of the slots the graph is rebuilt from the live vectors.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from phronesis.embeddings.types import Vectors
from phronesis.storage.vector_index import Bytes, ReadBytes

__all__ = ["FAISS_MISSING", "ONLINE_MAX", "HnswVectorIndex", "faiss_installed"]

_RECONSTRUCT_CHUNK = 50_000

ONLINE_MAX = 64
"""Vectors per ``upsert`` up to which they are inserted with ``expansion_add_online``."""


FAISS_MISSING = "faiss-cpu is not installed (pip install 'phronesis[faiss]')"


def faiss_installed() -> bool:
    """Whether HNSW can be built here: faiss-cpu is the ``faiss`` extra. Without it, in-process
    partitions stay exact at every size (correct, and slower past ``exact_max_size``)."""
    return importlib.util.find_spec("faiss") is not None


def _import_faiss() -> Any:
    try:
        import faiss
    except ImportError as exc:
        raise ImportError(f"HNSW search needs faiss: {FAISS_MISSING}") from exc
    return faiss


class HnswVectorIndex:
    def __init__(
        self,
        dimension: int,
        *,
        connectivity: int = 32,
        expansion_add: int = 128,
        expansion_add_online: int = 64,
        expansion_search: int = 128,
        compact_ratio: float = 0.25,
        compact_min: int = 1000,
    ) -> None:
        self._faiss = _import_faiss()
        self._dimension = dimension
        self._connectivity = connectivity
        self._expansion_add = expansion_add
        self._expansion_add_online = expansion_add_online
        self._expansion_search = expansion_search
        self._compact_ratio = compact_ratio
        self._compact_min = compact_min
        self._reset()

    def _reset(self) -> None:
        self._index = self._faiss.IndexHNSWFlat(self._dimension, self._connectivity, self._faiss.METRIC_INNER_PRODUCT)
        self._index.hnsw.efConstruction = self._expansion_add
        self._index.hnsw.efSearch = self._expansion_search
        self._slots: list[str | None] = []  # faiss id -> key; None marks a tombstone
        self._positions: dict[str, int] = {}
        self._alive = np.zeros(128, dtype=np.uint8)  # one bit per faiss id
        self._tombstones = 0

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def expansion_search(self) -> int:
        return self._expansion_search

    @expansion_search.setter
    def expansion_search(self, value: int) -> None:
        """Recall against search time, tunable on a built index (no rebuild): faiss's efSearch."""
        if value < 1:
            raise ValueError("expansion_search must be at least 1")
        self._expansion_search = value
        self._index.hnsw.efSearch = value

    def __len__(self) -> int:
        return len(self._positions)

    def __contains__(self, key: object) -> bool:
        return key in self._positions

    def _set_alive(self, positions: np.ndarray[Any, np.dtype[np.int64]], alive: bool) -> None:
        needed = int(positions.max()) // 8 + 1 if len(positions) else 0
        if needed > len(self._alive):
            grown = np.zeros(max(needed, 2 * len(self._alive)), dtype=np.uint8)
            grown[: len(self._alive)] = self._alive
            self._alive = grown
        bits = (1 << (positions & 7)).astype(np.uint8)
        if alive:
            np.bitwise_or.at(self._alive, positions >> 3, bits)
        else:
            np.bitwise_and.at(self._alive, positions >> 3, ~bits)

    def upsert(self, keys: Sequence[str], vectors: Vectors) -> None:
        if not keys:
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(keys), self._dimension)
        last = {key: row for row, key in enumerate(keys)}  # a key repeated in one call: the last vector wins
        rows = sorted(last.values())
        for key in last:
            self._tombstone(key)
        start = len(self._slots)
        # A decision's own new vector is added while a request waits (the next search must find
        # it), and an insertion costs about a search at efConstruction: measured 2.1 ms at 100k
        # vectors with 128, 0.7 ms with 64. A few vectors take the cheaper breadth; builds and
        # rebuilds, which shape the whole graph, take the full one.
        online = len(rows) <= ONLINE_MAX
        self._index.hnsw.efConstruction = self._expansion_add_online if online else self._expansion_add
        self._index.add(vectors[rows])
        unique_keys = [keys[row] for row in rows]
        self._slots.extend(unique_keys)
        for offset, key in enumerate(unique_keys):
            self._positions[key] = start + offset
        self._set_alive(np.arange(start, start + len(unique_keys), dtype=np.int64), True)
        self._maybe_compact()

    def _tombstone(self, key: str) -> bool:
        position = self._positions.pop(key, None)
        if position is None:
            return False
        self._slots[position] = None
        self._set_alive(np.array([position], dtype=np.int64), False)
        self._tombstones += 1
        return True

    def remove(self, key: str) -> bool:
        removed = self._tombstone(key)
        if removed:
            self._maybe_compact()
        return removed

    def _maybe_compact(self) -> None:
        if self._tombstones < self._compact_min or self._tombstones <= self._compact_ratio * len(self._slots):
            return
        live = list(self.items())
        self._reset()
        if live:
            self.upsert([key for key, _ in live], np.stack([vector for _, vector in live]))

    def search(self, query: Vectors, k: int) -> list[tuple[str, float]]:
        return self.search_many(query, k)[0]

    def search_many(self, queries: Vectors, k: int) -> list[list[tuple[str, float]]]:
        queries = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self._dimension)
        if not self._positions or k <= 0:
            return [[] for _ in queries]
        k = min(k, len(self._positions))
        if self._tombstones:
            # the selector only borrows the bitmap: keep both referenced for the call
            bitmap = self._alive
            selector = self._faiss.IDSelectorBitmap(len(self._slots), self._faiss.swig_ptr(bitmap))
            params = self._faiss.SearchParametersHNSW(sel=selector, efSearch=self._expansion_search)
            scores, ids = self._index.search(queries, k, params=params)
        else:
            scores, ids = self._index.search(queries, k)
        out: list[list[tuple[str, float]]] = []
        for row_ids, row_scores in zip(ids, scores, strict=True):
            found: list[tuple[str, float]] = []
            for position, score in zip(row_ids, row_scores, strict=True):
                key = self._slots[position] if position >= 0 else None
                if key is not None:
                    found.append((key, float(score)))
            out.append(found)
        return out

    def dump(self) -> tuple[list[str | None], Bytes]:
        """The graph as faiss serialises it, and the key of each of its slots (None: a tombstone),
        for a snapshot (``storage.index_snapshot``)."""
        data: Bytes = self._faiss.serialize_index(self._index)
        return list(self._slots), data

    def restore(self, slots: Sequence[str | None], read: ReadBytes) -> None:
        """Take back what ``dump`` gave, in place of what this index held: faiss reads the graph
        straight from ``read`` (no intermediate copy of a multi-gigabyte buffer)."""
        index = self._faiss.read_index(self._faiss.PyCallbackIOReader(read))
        if index.d != self._dimension or index.ntotal != len(slots):
            raise ValueError(f"a graph of {index.ntotal} {index.d}-d vectors for {len(slots)} slots")
        self._reset()
        self._index = index
        self._index.hnsw.efSearch = self._expansion_search
        self._slots = list(slots)
        self._positions = {key: position for position, key in enumerate(slots) if key is not None}
        self._tombstones = len(slots) - len(self._positions)
        live = np.fromiter((key is not None for key in slots), dtype=bool, count=len(slots))
        alive = np.packbits(live, bitorder="little")
        self._alive = np.zeros(max(128, len(alive)), dtype=np.uint8)
        self._alive[: len(alive)] = alive

    def items(self) -> Iterator[tuple[str, Vectors]]:
        positions = np.fromiter(self._positions.values(), dtype=np.int64, count=len(self._positions))
        positions.sort()
        for start in range(0, len(positions), _RECONSTRUCT_CHUNK):
            chunk = positions[start : start + _RECONSTRUCT_CHUNK]
            vectors = self._index.reconstruct_batch(chunk)
            for position, vector in zip(chunk, vectors, strict=True):
                key = self._slots[int(position)]
                assert key is not None
                yield key, vector
