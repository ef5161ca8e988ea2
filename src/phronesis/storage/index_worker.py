"""Changes to an in-memory vector index, applied on one background thread in order.

Inserting a vector into a large HNSW graph costs about as much as a search (about 1 ms at
a million vectors). When an admission has committed a new run, inserting it while the
request waits only delays the answer: nothing reads the index until the next search.
So the change goes to this worker, and faiss releases the GIL while it inserts, so the
event loop goes on on the other core (``RunIndex`` hands its changes over right after a
search, so that the insertion runs while that request judges and commits).

Two rules keep the index sound:

- ``guard`` is held by whoever touches the index, the worker for a whole change and the
  event loop's thread for each read or write of its own, since faiss's graph is not safe
  for concurrent use.
- ``settle()`` waits for every change submitted so far. A reader that must see them in
  order (the index log's replay: a run removed by another process after our own insert
  must stay removed) settles first.

The database stays the store of record: a change that fails here is only logged, and the
index log's replay applies it again (see ``RunIndex.sync``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

__all__ = ["IndexWorker"]

log = logging.getLogger("phronesis.storage")


class IndexWorker:
    def __init__(self, name: str) -> None:
        self._name = name
        self.guard = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._pending: deque[Future[None]] = deque()
        self.failed = 0
        """How many changes raised (for tests and metrics); each was logged."""

    def __len__(self) -> int:
        """Changes submitted and not finished yet."""
        self._forget_done()
        return len(self._pending)

    def submit(self, change: Callable[[], None]) -> None:
        """Run ``change`` on the worker thread, after every change submitted before it."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"phronesis-{self._name}")
        self._forget_done()
        future = self._executor.submit(self._locked, change)
        future.add_done_callback(self._report)
        self._pending.append(future)

    def _locked(self, change: Callable[[], None]) -> None:
        with self.guard:
            change()

    def _report(self, future: Future[None]) -> None:
        error = None if future.cancelled() else future.exception()
        if error is not None:
            self.failed += 1
            log.warning("%s: an index change failed (the index log will apply it again): %r", self._name, error)

    def _forget_done(self) -> None:
        while self._pending and self._pending[0].done():
            self._pending.popleft()

    async def settle(self) -> None:
        """Wait until every change submitted so far has been applied (or has failed and been logged).

        Waiting yields to the event loop, which may submit more: those are waited for too."""
        while True:
            self._forget_done()
            if not self._pending:
                return
            await asyncio.wait([asyncio.wrap_future(self._pending[-1])])

    async def close(self) -> None:
        """Finish the submitted changes and stop the thread."""
        await self.settle()
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False)
