"""The vector index over active runs, one partition per (tenant, agent, user) scope.

The database is the store of record (ARCHITECTURE: Data). The index is built from it on
first use and then follows ``admission_index_log``: every admission that adds or retires a
run appends to the log in its own transaction, and every search first applies what is
new, so a run admitted by another process (the CLI beside the server) is found on the
next call. Superseded runs leave the index, so they never match (seed 003).

On PostgreSQL, log ids come from a sequence and can commit out of order: an id seen
missing is waited for (``gap_timeout_s``) rather than skipped, so a slow transaction's
entry is not lost; a rolled-back insert leaves a gap that is given up after the timeout.

This process's own admissions do not wait for the log: once committed, their changes go
to an ``IndexWorker`` and are inserted on its thread while the request returns
(``committed``). The log's replay then finds them applied already; the next sync waits
for them first, so a search never misses a committed run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.admission.run_repository import IndexedRun, LogEntry, RunRepository
from phronesis.embeddings.types import Embedder, Vectors, embed_in_chunks, is_stale
from phronesis.storage.index_worker import IndexWorker
from phronesis.storage.partitioned_index import PartitionedIndex

__all__ = ["IndexChange", "RunIndex", "scope_key"]


def scope_key(agent_id: str, user_id: str) -> str:
    """The partition of a scope ("/" cannot appear in either id)."""
    return f"{agent_id}/{user_id}"


@dataclass(frozen=True, slots=True)
class IndexChange:
    """One committed index-log entry, with what applying it needs (the vector of an add)."""

    op: str
    run_id: str
    agent_id: str
    user_id: str
    vector: Vectors | None = None


class RunIndex:
    def __init__(
        self,
        repository: RunRepository,
        embedder: Embedder,
        index: PartitionedIndex,
        *,
        gap_timeout_s: float = 60.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._repository = repository
        self._embedder = embedder
        self._index = index
        self._gap_timeout_s = gap_timeout_s
        self._monotonic = monotonic
        self._lock: asyncio.Lock | None = None
        self._loaded = False
        self._watermark = 0
        self._ahead: set[int] = set()
        self._gap_since: float | None = None
        self._worker = IndexWorker("run-index")

    def __len__(self) -> int:
        with self._worker.guard:
            return len(self._index)

    @property
    def loaded(self) -> bool:
        return self._loaded

    def set_expansion_search(self, value: int) -> None:
        """Trade search time for recall on the built HNSW partitions (see ``PartitionedIndex``)."""
        with self._worker.guard:
            self._index.set_expansion_search(value)

    def partition_kinds(self) -> dict[str, int]:
        with self._worker.guard:
            return self._index.partition_kinds()

    def _the_lock(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def load(self, progress: Callable[[int], None] | None = None) -> int:
        """Rebuild from the active runs; rows embedded by another model are re-embedded first."""
        async with self._the_lock():
            return await self._load(progress)

    async def _load(self, progress: Callable[[int], None] | None) -> int:
        await self._worker.settle()
        with self._worker.guard:
            self._index.clear()
        self._ahead.clear()
        self._gap_since = None
        # read the watermark first: a change committed while loading is replayed by the next sync
        self._watermark = await self._repository.last_log_id()
        loaded = 0
        async for batch in self._repository.iter_active():
            stale = [r for r in batch if is_stale(r.embedding, r.embedding_model, self._embedder)]
            fresh: dict[tuple[str, str], Vectors] = {}
            if stale:
                vectors = await embed_in_chunks(self._embedder, [r.summary for r in stale])
                pairs = list(zip(stale, vectors, strict=True))
                await self._repository.set_embeddings(
                    [(r.tenant, r.id, v) for r, v in pairs], self._embedder.model_name
                )
                fresh = {(r.tenant, r.id): v for r, v in pairs}
            self._add_rows(batch, fresh)
            loaded += len(batch)
            if progress is not None:
                progress(len(batch))
        self._loaded = True
        return loaded

    def _add_rows(self, rows: list[IndexedRun], fresh: dict[tuple[str, str], Vectors]) -> None:
        def vector(row: IndexedRun) -> Vectors:
            found = fresh.get((row.tenant, row.id), row.embedding)
            assert found is not None
            return found

        with self._worker.guard:
            self._index.upsert_rows((r.tenant, scope_key(r.agent_id, r.user_id), r.id, vector(r)) for r in rows)

    async def sync(self, connection: AsyncConnection | None = None) -> None:
        """Load on first use, then apply every logged change not applied yet."""
        async with self._the_lock():
            if not self._loaded:
                await self._load(None)
                return
            while True:
                entries = await self._repository.log_since(self._watermark, connection=connection)
                fresh = [e for e in entries if e.id not in self._ahead]
                # our own committed changes first: a later entry (another process removing the
                # run we just added) must apply after them. No await from here to the end.
                await self._worker.settle()
                with self._worker.guard:
                    for entry in fresh:
                        self._apply(entry)
                        self._ahead.add(entry.id)
                self._advance()
                if len(entries) < 10_000:
                    return

    def _apply(self, entry: LogEntry) -> None:
        if entry.agent_id is None or entry.user_id is None:
            return  # the run row is gone (a purge): nothing to index
        self._change(entry.tenant, IndexChange(entry.op, entry.run_id, entry.agent_id, entry.user_id, entry.embedding))

    def _change(self, tenant: str, change: IndexChange) -> None:
        """One change, from the log's replay or from this process's own commit (on the worker thread)."""
        domain = scope_key(change.agent_id, change.user_id)
        if change.op == "remove":
            self._index.remove(tenant, domain, change.run_id)
        elif (
            change.vector is not None
            and len(change.vector) == self._index.dimension
            # a run's embedding never changes, so an add already applied is not re-inserted
            and not self._index.contains(tenant, domain, change.run_id)
        ):
            self._index.upsert(tenant, domain, [change.run_id], change.vector.reshape(1, -1))

    def committed(self, tenant: str, changes: Sequence[IndexChange]) -> None:
        """Apply an admission's committed changes on the worker thread, in log order, while the
        caller goes on. Before the first load there is nothing to apply them to: the load reads them."""
        if not changes or not self._loaded:
            return

        def apply() -> None:
            for change in changes:
                self._change(tenant, change)

        self._worker.submit(apply)

    async def close(self) -> None:
        """Finish the changes in flight and stop the worker thread."""
        await self._worker.close()

    def _advance(self) -> None:
        while self._watermark + 1 in self._ahead:
            self._watermark += 1
            self._ahead.discard(self._watermark)
        if not self._ahead:
            self._gap_since = None
            return
        now = self._monotonic()
        if self._gap_since is None:
            self._gap_since = now
        elif now - self._gap_since >= self._gap_timeout_s:
            self._watermark += 1  # given up: a rolled-back insert's id
            self._gap_since = None
            self._advance()

    def search_many(
        self, tenant: str, agent_id: str, user_id: str, vectors: Vectors, k: int
    ) -> list[list[tuple[str, float]]]:
        """``search`` for each row of ``vectors`` (a batch's runs of one scope), in one pass."""
        with self._worker.guard:
            return self._index.search_many(tenant, vectors, k, domain=scope_key(agent_id, user_id))

    def search(self, tenant: str, agent_id: str, user_id: str, vector: Vectors, k: int) -> list[tuple[str, float]]:
        """The top ``k`` of one scope as the index holds it now: call ``sync`` first to include
        every committed run (a change still in flight on the worker thread is waited for)."""
        with self._worker.guard:
            found = self._index.search(tenant, vector, k, domain=scope_key(agent_id, user_id))
        return [(key, score) for _, key, score in found]
