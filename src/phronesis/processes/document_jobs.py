"""Document jobs run in a process of their own, below the requests' priority.

Run inside a server's event loop, a job's splitting, embedding and writing shared the loop and the
CPU with the requests the server answers: a decision beside a 7 MB job waited up to 78 ms (9×
its idle p99). Here a server only watches for waiting jobs (``routing.document_job_poll_s``) and,
when one waits and no child of its own is running, starts ``python -m phronesis.processes.document_jobs``
with its own environment: niced (``routing.document_job_nice``), one thread for the model's
arithmetic, it runs every waiting job to its end and exits. The job's state is the database's, so
a child that is killed leaves its job under a lease that any server's next child takes over.

``routing.document_jobs_in = "server"`` runs them in the server's loop instead (no child process:
where processes cannot be started).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Awaitable, Callable

__all__ = ["JobProcess", "main"]

log = logging.getLogger("phronesis.processes.document_jobs")

_ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
"""The child's model runs on one core: the other stays the requests'."""


class JobProcess:
    """A server's watch over its job child: ``step`` starts one when a job waits and none runs."""

    def __init__(self, waiting: Callable[[], Awaitable[bool]], *, nice: int) -> None:
        self._waiting = waiting
        self._nice = nice
        self._child: asyncio.subprocess.Process | None = None

    @property
    def running(self) -> bool:
        return self._child is not None and self._child.returncode is None

    async def step(self) -> None:
        if self.running:
            return
        if self._child is not None:
            if self._child.returncode:
                log.warning(
                    "the document job process exited with %s; its job resumes after its lease", self._child.returncode
                )
            self._child = None
        if not await self._waiting():
            return
        env = {**os.environ, **_ONE_THREAD}
        self._child = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "phronesis.processes.document_jobs", str(self._nice), env=env
        )
        log.info("document job process %d started", self._child.pid)

    async def close(self) -> None:
        """Stop the child at shutdown: its job stays ``running`` under its lease, and resumes from
        its last stored chunk in the next server's child."""
        child, self._child = self._child, None
        if child is None or child.returncode is not None:
            return
        child.terminate()
        try:
            await asyncio.wait_for(child.wait(), timeout=10)
        except TimeoutError:
            child.kill()
            await child.wait()


async def _run() -> int:
    from phronesis.engine import Engine
    from phronesis.logs import configure_logging

    engine = Engine()
    configure_logging(engine.settings.log_level, engine.settings.log_format)
    await engine.start(migrate=False, load_index=False)  # the server migrated; its index follows the feed
    try:
        return await engine.routing.run_document_jobs()
    finally:
        await engine.close()


def main() -> None:
    """The child: every waiting job run to its end, then exit."""
    nice = int(sys.argv[1]) if len(sys.argv) > 1 else 0  # not a PHRONESIS_ variable: not a setting
    if nice:
        with contextlib.suppress(OSError):  # a lower priority where the system allows it
            os.nice(nice)
    ran = asyncio.run(_run())
    log.info("document job process done: %d jobs", ran)


if __name__ == "__main__":
    main()
