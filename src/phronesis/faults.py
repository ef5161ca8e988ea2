"""A fault logged once, with its cause, and once more when it is over.

A database outage or a dead LLM fails every request until it ends: a line per failure
buries the one that says why. ``Fault`` logs the first failure of a streak with its cause
(and the traceback when it is not one of phronesis's own errors), logs again only for a cause
it has not logged in this streak (at most ``MAX_CAUSES``), counts the rest, and says once
when things work again and for how long they did not. Background loops (``phronesis.loops``)
and the database (``storage.database``) share it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from phronesis.exceptions import PhronesisError

__all__ = ["MAX_CAUSES", "Fault"]

MAX_CAUSES = 5
"""Distinct causes logged per streak (an outage seen by concurrent requests may interleave a
few: "shutting down", "no such socket", "starting up"); later ones are only counted."""


@dataclass
class Fault:
    """One part that can fail (``what``: "database", "learning-sweep", "LLM my-model")."""

    what: str
    logger: logging.Logger
    failures: int = 0
    """Failures in the current streak (0 while the part works)."""
    _causes: set[str] = field(default_factory=set)
    _since: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def failing(self) -> bool:
        return self.failures > 0

    def failed(self, error: BaseException, *, action: str = "") -> None:
        """Note a failure; logged if it starts a streak or its cause differs from the last one."""
        cause = f"{type(error).__name__}: {error}"
        with self._lock:
            self.failures += 1
            if self.failures == 1:
                self._since = time.monotonic()
            repeated = cause in self._causes or len(self._causes) >= MAX_CAUSES
            if not repeated:
                self._causes.add(cause)
            count = self.failures
        if repeated:
            self.logger.debug("%s failed again (%d in a row): %s", self.what, count, cause)
            return
        ours = isinstance(error, PhronesisError)
        suffix = f", {action}" if action else ""
        self.logger.error("%s failed%s: %s", self.what, suffix, cause, exc_info=None if ours else error)

    @contextlib.contextmanager
    def watching(self, kind: type[BaseException]) -> Iterator[None]:
        """A block whose ``kind`` of error is a failure of this part and whose completion is a
        success: what a call to the part runs in."""
        try:
            yield
        except kind as error:
            self.failed(error)
            raise
        else:
            self.recovered()

    def recovered(self) -> None:
        """Note a success; logged once if it ends a streak. Costs one comparison otherwise."""
        if not self.failures:
            return
        with self._lock:
            count, since = self.failures, self._since
            self.failures = 0
            self._causes.clear()
        if count:
            self.logger.warning(
                "%s recovered after %d failed attempts over %.1f s", self.what, count, time.monotonic() - since
            )
