"""An in-process vector index that follows the database through the change feed.

Heuristics and routing documents are searched here (admission runs have their own
``RunIndex``, which follows the same feed with the same cursor but applies its changes on a
worker thread). The database is the store of record; this index is rebuilt from it on first
use and then kept up with it:

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

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from phronesis.embeddings.types import Embedder, Vectors, embed_in_chunks, is_stale
from phronesis.storage.change_feed import ChangeCursor, ChangeLog, FeedReads
from phronesis.storage.index_snapshot import IndexSnapshots, SnapshotRejected, caught_up, log_rejected
from phronesis.storage.partitioned_index import PartitionedIndex

__all__ = ["CollectionIndex", "FollowedIndex", "IndexSource", "IndexedRow", "SnapshotPolicy"]


@dataclass(frozen=True, slots=True)
class SnapshotPolicy:
    """Where and when an index is saved: after a rebuild or at close, once it holds ``min_size``
    vectors (a smaller one is rebuilt from its table in about a second)."""

    snapshots: IndexSnapshots
    min_size: int = 20_000


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


class FollowedIndex:
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
        self.index = index
        self._snapshot = snapshot
        self._changed_since_snapshot = False
        self._source = source
        self._log = log
        self._embedder = embedder
        self._reads = FeedReads(interval_s)
        self._cursor = ChangeCursor(gap_timeout_s=log.gap_timeout(gap_timeout_s), monotonic=monotonic)
        self._lock: asyncio.Lock | None = None
        self._loaded = False

    @property
    def loaded(self) -> bool:
        return self._loaded

    def __len__(self) -> int:
        return len(self.index)

    @property
    def watermark(self) -> int:
        """The feed id this index has applied every entry up to (of every collection: see ``FeedPage``)."""
        return self._cursor.watermark

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

    def _the_lock(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def load(self, progress: Callable[[int], None] | None = None) -> int:
        """Rebuild from the table; rows embedded by another model (or not at all) are re-embedded."""
        async with self._the_lock():
            return await self._load(progress)

    async def _load(self, progress: Callable[[int], None] | None) -> int:
        if self._snapshot is not None and await self._from_snapshot(self._snapshot.snapshots):
            return len(self.index)
        return await self._rebuild(progress)

    async def _rebuild(self, progress: Callable[[int], None] | None) -> int:
        self.index.clear()
        # read where to follow from first: a change committed while loading is applied by the next sync
        self._cursor.reset(await self._log.load_watermark())
        self._reads.begin()
        loaded = 0
        async for batch in self._source.iter_rows():
            self._index_rows(batch, await self._vectors(batch))
            loaded += len(batch)
            if progress is not None:
                progress(len(batch))
        self._loaded = True
        if self._snapshot is not None and loaded >= self._snapshot.min_size:
            await self._save(self._snapshot.snapshots)
        return loaded

    async def _from_snapshot(self, snapshots: IndexSnapshots) -> bool:
        """Load the snapshot and apply the feed after it; False (logged) if it cannot be trusted."""
        collection = self._log.collection
        self.index.clear()
        try:
            loaded = await asyncio.to_thread(
                snapshots.load,
                collection,
                self.index,
                embedding_model=self._embedder.model_name,
                feed_last_id=await self._log.last_id(),
            )
        except SnapshotRejected as exc:
            log_rejected(collection, exc)
            return False
        self._cursor.reset(loaded.watermark)
        self._loaded = await caught_up(
            collection, loaded, follow=self._follow, size=lambda: len(self.index), rows=self._source.count
        )
        return self._loaded

    async def _save(self, snapshots: IndexSnapshots) -> None:
        """Save the index as current to the cursor (no search runs meanwhile: start-up and close)."""
        await asyncio.to_thread(
            snapshots.save,
            self._log.collection,
            self.index,
            watermark=self._cursor.watermark,
            embedding_model=self._embedder.model_name,
        )
        self._changed_since_snapshot = False

    async def close(self) -> None:
        """Save a large index that changed since its snapshot, so the next start reads it back."""
        policy = self._snapshot
        if policy is None or not self._loaded or not self._changed_since_snapshot or len(self.index) < policy.min_size:
            return
        async with self._the_lock():
            await self._follow()  # so the snapshot is current to the newest entry, own writes included
            await self._save(policy.snapshots)

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

    async def sync(self, *, force: bool = False) -> None:
        """Load on first use, then apply what other processes committed since the last read
        (at most once per ``interval_s`` unless ``force``)."""
        arrived = time.monotonic()
        if self._loaded and not force and self._reads.recent(arrived):
            return
        async with self._the_lock():
            if not self._loaded:
                await self._load(None)
                return
            if not force and self._reads.shared(arrived):
                return  # a read that began after this call arrived has just finished: it is shared
            self._reads.begin()
            await self._follow()

    async def _follow(self) -> None:
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
