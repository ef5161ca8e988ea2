"""The vector index over active runs, one partition per (tenant, agent, user) scope.

The database is the store of record (ARCHITECTURE: Data). The index is built from it on
first use and then follows the change feed (``storage.change_feed``, collection ``runs``),
like every in-process index: every admission that adds or retires a run appends to it in
its own transaction, and a search first applies what is new (at most once per
``interval_s``), so a run admitted by another process (the CLI beside the server, another
worker) is found. Superseded runs leave the index, so they never match (seed 003). The
feed's entries are read joined with the runs they name, so one read brings the vectors.

This process's own admissions do not wait for the log. Once committed, their changes are
held in ``_unapplied`` and every search also compares its query with the held vectors
exactly (and drops held removals), so a search never misses a committed run. They go to
an ``IndexWorker`` right after the next search, and are inserted on its thread while that
request goes on to judge and commit: an HNSW insertion costs about a search (~1 ms at a
million runs), and inserted at commit time it was still running when the next request,
sent at once, came to search, which then waited for it. Held changes leave the list once
the worker has applied them, under the index's guard, so a search sees each change in
exactly one of the two places. The log's replay skips the entries of changes still held.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.admission.run_repository import IndexedRun, LogEntry, RunRepository
from phronesis.embeddings.types import Embedder, Vectors, embed_in_chunks, is_stale
from phronesis.storage.change_feed import Op
from phronesis.storage.feed_follower import FeedFollower, SnapshotPolicy
from phronesis.storage.index_snapshot import IndexSnapshots, Loaded
from phronesis.storage.index_worker import IndexWorker
from phronesis.storage.partitioned_index import PartitionedIndex

__all__ = ["IndexChange", "RunIndex", "scope_key"]

HELD_MAX = 16
"""Held changes past which they go to the worker at once instead of after the next search."""


def scope_key(agent_id: str, user_id: str) -> str:
    """The partition of a scope ("/" cannot appear in either id)."""
    return f"{agent_id}/{user_id}"


@dataclass(frozen=True, slots=True)
class IndexChange:
    """One committed index-log entry, with what applying it needs (the vector of an add)."""

    op: Op
    run_id: str
    agent_id: str
    user_id: str
    vector: Vectors | None = None


class RunIndex(FeedFollower[IndexedRun]):
    def __init__(
        self,
        repository: RunRepository,
        embedder: Embedder,
        index: PartitionedIndex,
        *,
        interval_s: float = 0.0,
        gap_timeout_s: float = 60.0,
        monotonic: Callable[[], float] = time.monotonic,
        snapshot: SnapshotPolicy | None = None,
    ) -> None:
        super().__init__(
            repository.changes,
            interval_s=interval_s,
            gap_timeout_s=gap_timeout_s,
            monotonic=monotonic,
            snapshot=snapshot,
        )
        self._repository = repository
        self._embedder = embedder
        self._index = index
        self._worker = IndexWorker("run-index")
        # this process's committed changes the index has not applied yet, in commit order; the
        # first ``_handed`` of them are queued on the worker. Read under the guard (see search).
        self._unapplied: deque[tuple[str, IndexChange]] = deque()
        self._handed = 0
        self._applied_own: set[tuple[str, str, str]] = set()  # (tenant, op, run id) applied by the worker
        self._unapplied_lock = threading.Lock()

    def __len__(self) -> int:
        """Runs a search finds here: the vectors in the index, with this process's committed changes
        still held (``committed``) counted as searches count them (``/healthz`` had trailed them)."""
        with self._worker.guard:  # the worker applies (and lets go of) held changes under it
            held = self._last_held()
            size = len(self._index)
            for (tenant, domain, run_id), vector in held.items():
                size += int(vector is not None) - int(self._index.contains(tenant, domain, run_id))
            return size

    def set_expansion_search(self, value: int) -> None:
        """Trade search time for recall on the built HNSW partitions (see ``PartitionedIndex``)."""
        with self._worker.guard:
            self._index.set_expansion_search(value)

    def partition_kinds(self) -> dict[str, int]:
        with self._worker.guard:
            return self._index.partition_kinds()

    async def _forget(self) -> None:
        await self._worker.settle()
        with self._worker.guard, self._unapplied_lock:
            self._index.clear()
            self._unapplied.clear()  # committed, so read from the table (or replayed from the log)
            self._handed = 0
            self._applied_own.clear()

    def _batches(self) -> AsyncIterator[list[IndexedRun]]:
        return self._repository.iter_active()

    async def _add_batch(self, rows: Sequence[IndexedRun]) -> None:
        """Index the active runs; those embedded by another model are embedded again first."""
        stale = [r for r in rows if is_stale(r.embedding, r.embedding_model, self._embedder)]
        fresh: dict[tuple[str, str], Vectors] = {}
        if stale:
            vectors = await embed_in_chunks(self._embedder, [r.summary for r in stale])
            pairs = list(zip(stale, vectors, strict=True))
            await self._repository.set_embeddings([(r.tenant, r.id, v) for r, v in pairs], self._embedder.model_name)
            fresh = {(r.tenant, r.id): v for r, v in pairs}
        self._add_rows(list(rows), fresh)

    async def _row_count(self) -> int:
        return await self._repository.count_active()

    def _read_snapshot(self, snapshots: IndexSnapshots, feed_last_id: int) -> Loaded:
        with self._worker.guard:
            model = self._embedder.model_name
            return snapshots.load("runs", self._index, embedding_model=model, feed_last_id=feed_last_id)

    def _write_snapshot(self, snapshots: IndexSnapshots) -> None:
        with self._worker.guard:
            model = self._embedder.model_name
            snapshots.save("runs", self._index, watermark=self._cursor.watermark, embedding_model=model)

    async def _settle(self) -> None:
        """Every held change applied first: the snapshot holds what the cursor says."""
        self._hand_off()
        await self._worker.settle()

    def _add_rows(self, rows: list[IndexedRun], fresh: dict[tuple[str, str], Vectors]) -> None:
        def vector(row: IndexedRun) -> Vectors:
            found = fresh.get((row.tenant, row.id), row.embedding)
            assert found is not None
            return found

        with self._worker.guard:
            self._index.upsert_rows((r.tenant, scope_key(r.agent_id, r.user_id), r.id, vector(r)) for r in rows)

    async def _follow(self, connection: AsyncConnection | None) -> None:
        """Apply the feed's entries after the cursor (under the lock)."""
        while True:
            page = await self._repository.log_since(self._cursor.watermark, connection=connection)
            entries = page.entries
            fresh, done = self._to_replay(entries)
            if fresh:
                # our own committed changes first: a later entry (another process removing
                # the run we just added) must apply after them; one that failed meanwhile is
                # replayed with the rest
                self._hand_off()
                await self._worker.settle()
                fresh, settled = self._to_replay(entries)
                done += settled
            with self._worker.guard:  # no await from here to the end
                for entry in fresh:
                    self._apply(entry)
            self._cursor.applied(page.ids([entry.id for entry in fresh] + done))
            if not page.full:
                return

    def _to_replay(self, entries: list[LogEntry]) -> tuple[list[LogEntry], list[int]]:
        """The log entries to apply, and those done already by this process's worker. An entry of
        a change still held is neither: the worker applies it, and it is looked at again next time
        (were that to fail, it is replayed then)."""
        fresh, done = [], []
        with self._unapplied_lock:
            held = {(tenant, change.op, change.run_id) for tenant, change in self._unapplied}
            for entry in entries:
                key = (entry.tenant, entry.op, entry.run_id)
                if not self._cursor.is_new(entry.id) or key in held:
                    continue
                if key in self._applied_own:
                    self._applied_own.discard(key)
                    done.append(entry.id)
                else:
                    fresh.append(entry)
        return fresh, done

    def _apply(self, entry: LogEntry) -> None:
        if entry.agent_id is None or entry.user_id is None:
            return  # the run row is gone (a purge): nothing to index
        self._change(entry.tenant, IndexChange(entry.op, entry.run_id, entry.agent_id, entry.user_id, entry.embedding))

    def _change(self, tenant: str, change: IndexChange) -> None:
        """One change, from the log's replay or from this process's own commit (on the worker thread)."""
        self._changed_since_snapshot = True
        domain = scope_key(change.agent_id, change.user_id)
        if change.op == "remove":
            self._index.remove(tenant, domain, change.run_id)
        elif (
            (vector := self._insertable(change)) is not None
            # a run's embedding never changes, so an add already applied is not re-inserted
            and not self._index.contains(tenant, domain, change.run_id)
        ):
            self._index.upsert(tenant, domain, [change.run_id], vector.reshape(1, -1))

    def _insertable(self, change: IndexChange) -> Vectors | None:
        """An add's vector, if it fits the index (a row embedded by another model does not)."""
        vector = change.vector
        return vector if vector is not None and len(vector) == self._index.dimension else None

    def committed(self, tenant: str, changes: Sequence[IndexChange]) -> None:
        """Hold an admission's committed changes until the next search has run (it compares with
        them exactly), then apply them on the worker thread, in log order. Before the first load
        there is nothing to apply them to: the load reads them."""
        if not changes or not self._loaded:
            return
        with self._unapplied_lock:
            self._unapplied.extend((tenant, change) for change in changes)
            held = len(self._unapplied) - self._handed
        if held > HELD_MAX:  # a batch's runs: past a few, exact comparison costs more than it saves
            self._hand_off()

    def _hand_off(self) -> None:
        """Queue the held changes on the worker, one job each: a change that fails there is logged
        and counted (the log's replay applies it again) and the ones after it still run."""
        with self._unapplied_lock:
            handing = list(self._unapplied)[self._handed :]
            self._handed = len(self._unapplied)
        for tenant, change in handing:
            self._worker.submit(partial(self._apply_held, tenant, change))

    def _apply_held(self, tenant: str, change: IndexChange) -> None:
        """On the worker thread, under the guard: apply the oldest held change, then let it go."""
        applied = False
        try:
            self._change(tenant, change)
            applied = True
        finally:
            with self._unapplied_lock:
                self._unapplied.popleft()
                self._handed -= 1
                if applied:  # its log entry need not be replayed (a failed one is)
                    self._applied_own.add((tenant, change.op, change.run_id))

    def _held_in(self, tenant: str, domain: str) -> tuple[dict[str, Vectors], set[str]]:
        """The held changes of one scope, the last per run winning: vectors added, runs removed."""
        added: dict[str, Vectors] = {}
        removed: set[str] = set()
        for (_, held_domain, run_id), vector in self._last_held(tenant).items():
            if held_domain != domain:
                continue
            if vector is None:
                removed.add(run_id)
            else:
                added[run_id] = vector
        return added, removed

    def _last_held(self, tenant: str | None = None) -> dict[tuple[str, str, str], Vectors | None]:
        """This process's held changes (of ``tenant``; None: every tenant's) by (tenant, scope, run),
        the last per run winning: the vector an add puts in, or None for a removal. An add whose
        vector does not fit the index changes nothing."""
        with self._unapplied_lock:
            held = [(t, change) for t, change in self._unapplied if tenant is None or t == tenant]
        last: dict[tuple[str, str, str], Vectors | None] = {}
        for t, change in held:
            key = (t, scope_key(change.agent_id, change.user_id), change.run_id)
            if change.op == "remove":
                last[key] = None
            elif (vector := self._insertable(change)) is not None:
                last[key] = vector
        return last

    async def close(self) -> None:
        """Finish the changes held and in flight, save a large index that changed since its
        snapshot, and stop the worker thread."""
        self._hand_off()
        await self._save_if_changed()
        await self._worker.close()

    def search_many(
        self, tenant: str, agent_id: str, user_id: str, vectors: Vectors, k: int
    ) -> list[list[tuple[str, float]]]:
        """The top ``k`` of one scope for each row of ``vectors`` (a batch's runs), in one pass:
        call ``sync`` first to include every run committed by another process. This process's
        own committed changes are included whether or not the worker has applied them yet."""
        domain = scope_key(agent_id, user_id)
        queries = np.asarray(vectors, dtype=np.float32).reshape(-1, self._index.dimension)
        with self._worker.guard:
            # under the guard no change is half-applied: each is in the index or still held
            added, removed = self._held_in(tenant, domain)
            found = self._index.search_many(tenant, queries, k + len(added) + len(removed), domain=domain)
        if added:
            keys = list(added)
            exact = queries @ np.stack([added[key] for key in keys]).T
        out = []
        for row, hits in enumerate(found):
            merged = [(key, score) for key, score in hits if key not in removed and key not in added]
            if added:
                merged += [(key, float(score)) for key, score in zip(keys, exact[row], strict=True)]
                merged.sort(key=lambda hit: hit[1], reverse=True)
            out.append(merged[:k])
        self._hand_off()  # the search is done: the worker may take the index while this request goes on
        return out

    async def find_many(
        self, tenant: str, agent_id: str, user_id: str, vectors: Vectors, k: int
    ) -> list[list[tuple[str, float]]]:
        """``search_many`` behind the runs index's async seam (``RunVectors``): call ``sync`` first."""
        return self.search_many(tenant, agent_id, user_id, vectors, k)

    def kinds(self) -> dict[str, int]:
        return self.partition_kinds()

    def search(self, tenant: str, agent_id: str, user_id: str, vector: Vectors, k: int) -> list[tuple[str, float]]:
        """``search_many`` for one vector."""
        return self.search_many(tenant, agent_id, user_id, vector, k)[0]
