"""Work that runs after a response is returned (seed 000: endorsement is "fire-and-forget").

Fire-and-forget in GLADyS meant an untracked task whose errors vanished and which a
shutdown could cut in half. Here every task is tracked: errors are logged with the
task's name, ``drain()`` waits for the backlog (shutdown, tests) and a bounded
``max_pending`` sheds load instead of growing without limit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

__all__ = ["BackgroundTasks"]

logger = logging.getLogger("phronesis.background")


class BackgroundTasks:
    def __init__(self, *, max_pending: int = 10_000) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._max_pending = max_pending
        self.failed = 0
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._tasks)

    def spawn(self, coroutine: Coroutine[Any, Any, Any], *, name: str) -> bool:
        """Schedule ``coroutine``; returns False (and closes it unrun) when the backlog is full."""
        if len(self._tasks) >= self._max_pending:
            self.dropped += 1
            coroutine.close()
            logger.warning("background backlog full (%d); dropped %s", self._max_pending, name)
            return False
        task = asyncio.get_running_loop().create_task(coroutine, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return True

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.failed += 1
            logger.error("background task %s failed", task.get_name(), exc_info=error)

    async def drain(self) -> None:
        """Wait until every task scheduled so far (and any they schedule) has finished."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
