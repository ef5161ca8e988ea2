"""An in-process vector index that follows the database through the change feed.

Heuristics and routing documents are searched here. Loading, following and snapshots are the
lifecycle every followed index shares (``storage.feed_follower``); admission's ``RunIndex`` has
the same, and applies its changes on a worker thread. The database is the store of record; this
index is rebuilt from it on first use and then kept up with it:

- a write made by this process is applied at once, after its transaction commits
  (``applied`` / ``removed``), so the next search sees it; its feed entries, known by id
  (``ChangeLog.own``), are then skipped;
- a write made by any other process is read from the feed by ``sync`` before a search (at
  most once per ``interval_s``, 0 by default: every search; searches that arrive while one read
  is under way share it): each changed key is read again from its table and indexed as its row
  stands now, so updates, domain moves and deletes land whatever order the entries come in.

With ``snapshots``, a large index is saved beside the database after a rebuild and at close,
and a start reads the snapshot and applies the feed after it instead of rebuilding
(``storage.index_snapshot``); a snapshot that is rejected, or that leaves the index with
another number of vectors than the table has rows, is logged and the index rebuilt.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.embeddings.types import Embedder, Vectors, embed_in_chunks, is_stale
from phronesis.storage.change_feed import ChangeLog
from phronesis.storage.feed_follower import FeedFollower, SnapshotPolicy
from phronesis.storage.index_snapshot import IndexSnapshots, Loaded
from phronesis.storage.partitioned_index import PartitionedIndex

__all__ = ["CollectionIndex", "FollowedIndex", "IndexSource", "IndexedRow"]


@dataclass(frozen=True, slots=True)
class IndexedRow:
    """A searched row as its table holds it: where it is indexed, and what to embed if its
    stored vector is missing or from another model."""

    tenant: str
    key: str
    partition: str
    text: str
    embedding: Vectors | None
    embedding_model: str | None


class IndexSource(Protocol):
    """The table behind a followed index."""

    def iter_rows(self) -> AsyncIterator[list[IndexedRow]]:
        """Every row, in batches (keyset pagination, constant memory)."""
        ...

    async def rows(self, tenant: str, keys: Sequence[str]) -> list[IndexedRow]:
        """The rows of ``keys`` as they stand now; a key with no row is gone."""
        ...

    async def set_embeddings(self, items: Sequence[tuple[str, str, Vectors]], embedding_model: str) -> None:
        """Store vectors computed for stale rows (tenant, key, vector)."""
        ...

    async def count(self) -> int:
        """How many rows the index should hold."""
        ...


class CollectionIndex(Protocol):
    """The seam for one searched collection (heuristics, documents): ``FollowedIndex`` in this
    process, or ``storage.pgvector.PgVectorCollection`` inside PostgreSQL. One contract suite
    (``tests/storage/test_collection_index.py``) runs on every backend."""

    @property
    def loaded(self) -> bool: ...

    def __len__(self) -> int:
        """Vectors held in this process (0 where the database searches)."""
        ...

    def kinds(self) -> dict[str, int]: ...

    async def load(self, progress: Callable[[int], None] | None = None) -> int: ...

    async def search(
        self, tenant: str, query: Vectors, k: int, *, partitions: Sequence[str] | None = None
    ) -> list[tuple[str, str, float]]:
        """Top ``k`` (partition, key, cosine similarity) of one tenant, most similar first."""
        ...

    def applied(self, tenant: str, partition: str, keys: Sequence[str], vectors: Vectors) -> None:
        """Rows this process has just committed (each with a feed entry)."""
        ...

    def removed(self, tenant: str, key: str) -> None:
        """A row this process has just deleted."""
        ...

    async def close(self) -> None: ...


class FollowedIndex(FeedFollower[IndexedRow]):
    def __init__(
        self,
        index: PartitionedIndex,
        source: IndexSource,
        log: ChangeLog,
        embedder: Embedder,
        *,
        interval_s: float = 0.0,
        gap_timeout_s: float = 60.0,
        monotonic: Callable[[], float] = time.monotonic,
        snapshot: SnapshotPolicy | None = None,
    ) -> None:
        super().__init__(
            log, interval_s=interval_s, gap_timeout_s=gap_timeout_s, monotonic=monotonic, snapshot=snapshot
        )
        self.index = index
        self._source = source
        self._embedder = embedder

    def __len__(self) -> int:
        return len(self.index)

    def kinds(self) -> dict[str, int]:
        """How many partitions use each implementation (for /healthz and metrics)."""
        return self.index.partition_kinds()

    async def search(
        self, tenant: str, query: Vectors, k: int, *, partitions: Sequence[str] | None = None
    ) -> list[tuple[str, str, float]]:
        """Top ``k`` (partition, key, similarity) in ``partitions`` (None: all the tenant's), after
        applying what other processes committed."""
        await self.sync()
        return self.index.search(tenant, query, k, domains=partitions)

    async def _forget(self) -> None:
        self.index.clear()

    def _batches(self) -> AsyncIterator[list[IndexedRow]]:
        return self._source.iter_rows()

    async def _add_batch(self, rows: Sequence[IndexedRow]) -> None:
        self._index_rows(rows, await self._vectors(rows))

    async def _row_count(self) -> int:
        return await self._source.count()

    def _read_snapshot(self, snapshots: IndexSnapshots, feed_last_id: int) -> Loaded:
        return snapshots.load(
            self._log.collection, self.index, embedding_model=self._embedder.model_name, feed_last_id=feed_last_id
        )

    def _write_snapshot(self, snapshots: IndexSnapshots) -> None:
        snapshots.save(
            self._log.collection,
            self.index,
            watermark=self._cursor.watermark,
            embedding_model=self._embedder.model_name,
        )

    async def close(self) -> None:
        """Save a large index that changed since its snapshot, so the next start reads it back."""
        await self._save_if_changed()

    async def _vectors(self, rows: Sequence[IndexedRow]) -> list[Vectors]:
        """Each row's vector: as stored, or embedded now (and stored) if it is stale."""
        stale = [i for i, row in enumerate(rows) if is_stale(row.embedding, row.embedding_model, self._embedder)]
        vectors: list[Vectors | None] = [row.embedding for row in rows]
        if stale:
            fresh = await embed_in_chunks(self._embedder, [rows[i].text for i in stale])
            model = self._embedder.model_name
            await self._source.set_embeddings(
                [(rows[i].tenant, rows[i].key, vector) for i, vector in zip(stale, fresh, strict=True)], model
            )
            for i, vector in zip(stale, fresh, strict=True):
                vectors[i] = vector
        return [v for v in vectors if v is not None]

    def _index_rows(self, rows: Sequence[IndexedRow], vectors: Sequence[Vectors]) -> None:
        self.index.upsert_rows(
            (row.tenant, row.partition, row.key, vector) for row, vector in zip(rows, vectors, strict=True)
        )

    async def _follow(self, connection: AsyncConnection | None) -> None:
        """Apply the feed's entries after the cursor (under the lock)."""
        while True:
            page = await self._log.since(self._cursor.watermark)
            fresh = [c for c in page.entries if self._cursor.is_new(c.id)]
            own = self._log.own
            changed: dict[str, dict[str, None]] = {}
            for change in fresh:
                if change.id in own:
                    own.discard(change.id)  # this process applied it when it committed
                else:
                    changed.setdefault(change.tenant, {})[change.key] = None
            for tenant, keys in changed.items():
                await self._refresh(tenant, list(keys))
            self._cursor.applied(page.ids(c.id for c in fresh))
            # an own id at or below the watermark was rolled back, or applied twice harmlessly
            own.difference_update([i for i in own if i <= self._cursor.watermark])
            if not page.full:
                return

    async def _refresh(self, tenant: str, keys: list[str]) -> None:
        """Index ``keys`` as their rows stand now: moved, re-embedded or gone."""
        rows = await self._source.rows(tenant, keys)
        vectors = await self._vectors(rows)
        for key in keys:
            self.index.remove_everywhere(tenant, key)
        self._index_rows(rows, vectors)
        self._changed_since_snapshot = True

    # ---- this process's own committed writes ----------------------------------------------

    def applied(self, tenant: str, partition: str, keys: Sequence[str], vectors: Vectors) -> None:
        """Index rows this process has just committed (their feed entries are in ``ChangeLog.own``)."""
        if not self._loaded or not keys:
            return  # nothing loaded yet: the load reads them
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(keys), -1)
        for key in keys:
            self.index.remove_everywhere(tenant, key)
        self.index.upsert(tenant, partition, list(keys), vectors)
        self._changed_since_snapshot = True

    def removed(self, tenant: str, key: str) -> None:
        """Drop a row this process has just deleted."""
        if self._loaded:
            self.index.remove_everywhere(tenant, key)
            self._changed_since_snapshot = True
