"""The one lifecycle of an in-process index that follows the database through the change feed
(``storage.change_feed``): heuristics', routing documents' (``FollowedIndex``) and admission
runs' (``admission.run_index.RunIndex``).

The database is the store of record; such an index is

- **loaded once**, under a lock, on first use: from a snapshot beside the database when one can
  be trusted (``storage.index_snapshot``: it is then brought up to date from the feed and checked
  against the table's row count), else **rebuilt** from its table, rows embedded by another model
  embedded again;
- **followed**: before a search, the feed's entries after its cursor are applied (at most once
  per ``interval_s``; searches that arrive while one read is under way share it);
- **saved** at close when it is large and changed since its snapshot, so the next start reads
  it back instead of rebuilding.

What differs between indexes (where their rows come from, how an entry is applied, a worker
thread) is each subclass's: the abstract methods below."""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.storage.change_feed import ChangeCursor, ChangeLog, FeedReads
from phronesis.storage.index_snapshot import IndexSnapshots, Loaded, SnapshotRejected, caught_up, log_rejected

__all__ = ["FeedFollower", "SnapshotPolicy"]

RowT = TypeVar("RowT")


@dataclass(frozen=True, slots=True)
class SnapshotPolicy:
    """Where and when an index is saved: after a rebuild or at close, once it holds ``min_size``
    vectors (a smaller one is rebuilt from its table in about a second)."""

    snapshots: IndexSnapshots
    min_size: int = 20_000


class FeedFollower(ABC, Generic[RowT]):
    """Load, follow, snapshot: the lifecycle every followed index shares (see the module)."""

    def __init__(
        self,
        log: ChangeLog,
        *,
        interval_s: float = 0.0,
        gap_timeout_s: float = 60.0,
        monotonic: Callable[[], float] = time.monotonic,
        snapshot: SnapshotPolicy | None = None,
    ) -> None:
        self._log = log
        self._snapshot = snapshot
        self._changed_since_snapshot = False
        self._reads = FeedReads(interval_s)
        self._cursor = ChangeCursor(gap_timeout_s=log.gap_timeout(gap_timeout_s), monotonic=monotonic)
        self._lock: asyncio.Lock | None = None
        self._loaded = False

    # ---- what each index does its own way -----------------------------------------------

    @abstractmethod
    def __len__(self) -> int:
        """Vectors in the index."""

    @abstractmethod
    async def _forget(self) -> None:
        """Empty the index (and whatever it holds beside it) before a load."""

    @abstractmethod
    def _batches(self) -> AsyncIterator[Sequence[RowT]]:
        """Its table's rows, in batches, for a rebuild."""

    @abstractmethod
    async def _add_batch(self, rows: Sequence[RowT]) -> None:
        """Index a batch of rows (embedding again, and storing, those of another model)."""

    @abstractmethod
    async def _row_count(self) -> int:
        """How many rows its table holds: what a loaded snapshot must match."""

    @abstractmethod
    def _read_snapshot(self, snapshots: IndexSnapshots, feed_last_id: int) -> Loaded:
        """Load the snapshot into the index (on a thread); raises ``SnapshotRejected``."""

    @abstractmethod
    def _write_snapshot(self, snapshots: IndexSnapshots) -> None:
        """Save the index as it stands, current to the cursor (on a thread)."""

    @abstractmethod
    async def _follow(self, connection: AsyncConnection | None) -> None:
        """Apply the feed's entries after the cursor (under the lock)."""

    async def _settle(self) -> None:
        """Finish changes in flight before a snapshot is written (a worker thread's)."""

    # ---- the lifecycle ---------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        return self._loaded

    @property
    def watermark(self) -> int:
        """The feed id this index has applied every entry up to (of every collection: see ``FeedPage``)."""
        return self._cursor.watermark

    def _the_lock(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def load(self, progress: Callable[[int], None] | None = None) -> int:
        """Load from a trusted snapshot, else rebuild from the table; the vectors loaded."""
        async with self._the_lock():
            return await self._load(progress)

    async def _load(self, progress: Callable[[int], None] | None) -> int:
        if self._snapshot is not None:
            await self._forget()  # the snapshot loads into an empty index; a rebuild empties it itself
            if await self._from_snapshot(self._snapshot.snapshots):
                return len(self)
        return await self._rebuild(progress)

    async def _rebuild(self, progress: Callable[[int], None] | None) -> int:
        await self._forget()
        # read where to follow from first: a change committed while loading is applied by the next sync
        self._cursor.reset(await self._log.load_watermark())
        self._reads.begin()
        loaded = 0
        async for batch in self._batches():
            await self._add_batch(batch)
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
        try:
            loaded = await asyncio.to_thread(self._read_snapshot, snapshots, await self._log.last_id())
        except SnapshotRejected as exc:
            log_rejected(collection, exc)
            return False
        self._cursor.reset(loaded.watermark)
        self._reads.begin()
        self._loaded = True

        async def follow() -> None:
            await self._follow(None)

        self._loaded = await caught_up(collection, loaded, follow=follow, size=lambda: len(self), rows=self._row_count)
        return self._loaded

    async def _save(self, snapshots: IndexSnapshots) -> None:
        """Save the index as current to the cursor (no search runs meanwhile: start-up and close)."""
        await self._settle()
        await asyncio.to_thread(self._write_snapshot, snapshots)
        self._changed_since_snapshot = False

    async def sync(self, connection: AsyncConnection | None = None, *, force: bool = False) -> None:
        """Load on first use, then apply what other processes committed since the last read (at
        most once per ``interval_s`` unless ``force``; ``connection``: read the feed on it)."""
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
            await self._follow(connection)

    async def _save_if_changed(self) -> None:
        """At close: save a large index that changed since its snapshot, current to the newest
        entry (own writes included), so the next start reads it back."""
        policy = self._snapshot
        if policy is None or not self._loaded or not self._changed_since_snapshot or len(self) < policy.min_size:
            return
        async with self._the_lock():
            await self._follow(None)
            await self._save(policy.snapshots)
