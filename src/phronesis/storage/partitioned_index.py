"""Vector indexes partitioned by (tenant, domain), each exact or HNSW by its size.

Partitioning makes the hard filters exact: a tenant never searches another tenant's
vectors and a source filter searches only its own partition (GLADyS bug: its cache
ignored the source filter). A partition starts exact and is rebuilt as HNSW once it
grows past ``exact_max_size``, where HNSW can be built (the ``faiss`` extra); without it, it
stays exact.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Literal

import numpy as np

from phronesis.embeddings.types import Vectors
from phronesis.storage.hnsw_index import FAISS_MISSING, HnswVectorIndex, faiss_installed
from phronesis.storage.vector_index import ExactVectorIndex, ReadBytes, VectorIndex

__all__ = ["PartitionedIndex"]


class PartitionedIndex:
    def __init__(
        self,
        dimension: int,
        *,
        exact_max_size: int = 20_000,
        hnsw_factory: Callable[[int], VectorIndex] | None | Literal["default"] = "default",
    ) -> None:
        """``hnsw_factory``: how a partition past ``exact_max_size`` is rebuilt; None: it is not
        (every partition stays exact); by default, HNSW where faiss is installed."""
        self.dimension = dimension
        self._exact_max_size = exact_max_size
        if hnsw_factory == "default":
            hnsw_factory = HnswVectorIndex if faiss_installed() else None
        self._hnsw_factory = hnsw_factory
        self._partitions: dict[str, dict[str, VectorIndex]] = {}

    def __len__(self) -> int:
        return sum(len(index) for domains in self._partitions.values() for index in domains.values())

    def partition_kinds(self) -> dict[str, int]:
        """How many partitions use each implementation (for /healthz and metrics)."""
        kinds: dict[str, int] = {}
        for domains in self._partitions.values():
            for index in domains.values():
                name = type(index).__name__
                kinds[name] = kinds.get(name, 0) + 1
        return kinds

    def clear(self) -> None:
        self._partitions.clear()

    def partitions(self) -> Iterator[tuple[str, str, VectorIndex]]:
        """Every (tenant, domain, index), for a snapshot."""
        for tenant, domains in self._partitions.items():
            for domain, index in domains.items():
                yield tenant, domain, index

    def restore_partition(self, tenant: str, domain: str, hnsw: bool, slots: list[str | None], read: ReadBytes) -> None:
        """Put back a partition a snapshot holds (exact or HNSW, as it was saved)."""
        if hnsw and self._hnsw_factory is None:
            raise ValueError(f"the partition is an HNSW graph and {FAISS_MISSING}")
        index = self._hnsw_factory(self.dimension) if hnsw and self._hnsw_factory else ExactVectorIndex(self.dimension)
        index.restore(slots, read)
        self._partitions.setdefault(tenant, {})[domain] = index

    def set_expansion_search(self, value: int) -> None:
        """Retune every HNSW partition's search breadth in place (exact partitions are exact anyway)."""
        for domains in self._partitions.values():
            for index in domains.values():
                if isinstance(index, HnswVectorIndex):
                    index.expansion_search = value

    def upsert(self, tenant: str, domain: str, keys: list[str], vectors: Vectors) -> None:
        domains = self._partitions.setdefault(tenant, {})
        index = domains.get(domain)
        if index is None:
            index = domains[domain] = ExactVectorIndex(self.dimension)
        factory = self._hnsw_factory
        if isinstance(index, ExactVectorIndex) and len(index) + len(keys) > self._exact_max_size and factory:
            index = domains[domain] = self._promote(index, factory)
        index.upsert(keys, vectors)

    def upsert_rows(self, rows: Iterable[tuple[str, str, str, Vectors]]) -> None:
        """Insert (tenant, domain, key, vector) rows of mixed partitions, one ``upsert`` per partition."""
        groups: dict[tuple[str, str], tuple[list[str], list[Vectors]]] = {}
        for tenant, domain, key, vector in rows:
            keys, vectors = groups.setdefault((tenant, domain), ([], []))
            keys.append(key)
            vectors.append(vector)
        for (tenant, domain), (keys, vectors) in groups.items():
            self.upsert(tenant, domain, keys, np.stack(vectors))

    def _promote(self, exact: ExactVectorIndex, factory: Callable[[int], VectorIndex]) -> VectorIndex:
        hnsw = factory(self.dimension)
        pairs = list(exact.items())
        if pairs:
            keys = [key for key, _ in pairs]
            hnsw.upsert(keys, np.stack([vector for _, vector in pairs]))
        return hnsw

    def contains(self, tenant: str, domain: str, key: str) -> bool:
        index = self._partitions.get(tenant, {}).get(domain)
        return index is not None and key in index

    def remove(self, tenant: str, domain: str, key: str) -> bool:
        index = self._partitions.get(tenant, {}).get(domain)
        return index.remove(key) if index is not None else False

    def remove_everywhere(self, tenant: str, key: str) -> bool:
        """Drop ``key`` from whichever of the tenant's partitions holds it (its row may have moved)."""
        removed = False
        for index in self._partitions.get(tenant, {}).values():
            removed = index.remove(key) or removed
        return removed

    def search_many(self, tenant: str, queries: Vectors, k: int, *, domain: str) -> list[list[tuple[str, float]]]:
        """Top ``k`` (key, similarity) in one domain for each row of ``queries``, in one pass."""
        index = self._partitions.get(tenant, {}).get(domain)
        if index is None:
            return [[] for _ in np.asarray(queries).reshape(-1, self.dimension)]
        return index.search_many(queries, k)

    def search(
        self,
        tenant: str,
        query: Vectors,
        k: int,
        *,
        domain: str | None = None,
        domains: Sequence[str] | None = None,
    ) -> list[tuple[str, str, float]]:
        """Top ``k`` (domain, key, similarity) for ``tenant``: in one domain, in several, or across all."""
        partitions = self._partitions.get(tenant, {})
        if domain is not None:
            domains = [domain]
        selected = (
            partitions.items()
            if domains is None
            else [(name, partitions[name]) for name in dict.fromkeys(domains) if name in partitions]
        )
        if len(selected) == 1:
            name, index = next(iter(selected))
            return [(name, key, score) for key, score in index.search(query, k)]
        found = ((name, key, score) for name, index in selected for key, score in index.search(query, k))
        return heapq.nlargest(k, found, key=lambda item: item[2])
