"""The change feed every in-process vector index follows (ARCHITECTURE: "one mechanism").

Whatever changes a searched set of vectors (a heuristic added, re-embedded, moved to another
domain or deleted; a run admitted or superseded; a document added or deleted) appends a row
to ``index_changes`` in the same transaction as the change. Each process's index reads the
entries after the last one it applied, so a write committed by any process (the CLI, another
API worker, a Celery worker) reaches every other process's searches.

Ids are never used twice (SQLite ``AUTOINCREMENT``, a PostgreSQL sequence), even after a
rollback. On SQLite writers are serialised, so ids commit in order and a gap is a rolled-back
insert, passed over at once. On PostgreSQL they can commit out of order: ``ChangeCursor``
waits ``gap_timeout_s`` for an id it saw missing, rather than skip it, so a slow transaction's
entry is not lost; a rolled-back insert leaves a gap that is given up after the timeout.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

from sqlalchemy import Integer, bindparam, func, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.storage.database import Database
from phronesis.storage.tables import index_changes

__all__ = ["INSERT_CHANGES", "Change", "ChangeCursor", "ChangeLog", "Collection", "FeedReads", "Op", "change_rows"]

Collection = Literal["heuristics", "runs", "passages"]
Op = Literal["add", "remove"]

LOAD_REPLAY: Final = 1000
"""Entries before the newest one that a load replays on a database whose ids can commit out of
order (PostgreSQL): a transaction that took its id before the load read the newest id, and
committed after the load read the rows, is applied then. Re-applying an entry is harmless."""

_c = index_changes.c
INSERT_CHANGES: Final = insert(index_changes)
_INSERT_RETURNING: Final = INSERT_CHANGES.returning(index_changes.c.id)
_SINCE: Final = (
    select(_c.id, _c.tenant, _c.key, _c.op)
    .where(_c.collection == bindparam("collection"), _c.id > bindparam("after"))
    .order_by(_c.id)
    .limit(bindparam("limit", type_=Integer))
)
_LAST: Final = select(func.coalesce(func.max(_c.id), 0)).where(_c.collection == bindparam("collection"))


@dataclass(frozen=True, slots=True)
class Change:
    id: int
    tenant: str
    key: str
    op: str


def change_rows(
    collection: Collection, tenant: str, ops: Iterable[tuple[Op, str]], at: datetime
) -> list[dict[str, Any]]:
    """The rows for ``INSERT_CHANGES``, in the order given (their ids, and so the order every
    index applies them in, follow it)."""
    return [{"collection": collection, "tenant": tenant, "key": key, "op": op, "created_at": at} for op, key in ops]


class ChangeLog:
    """One collection's view of ``index_changes``."""

    def __init__(self, database: Database, collection: Collection) -> None:
        self._db = database
        self.collection: Collection = collection
        self.own: set[int] = set()
        """Ids of the entries this process appended: its index applies those changes itself when
        they commit, so following the feed skips them (see ``FollowedIndex``). The id of a
        rolled-back entry is never used again, and is forgotten once the feed has passed it."""

    async def append(
        self, connection: AsyncConnection, tenant: str, ops: Iterable[tuple[Op, str]], at: datetime
    ) -> None:
        """Record changes in the caller's transaction: they become visible when it commits."""
        rows = change_rows(self.collection, tenant, ops, at)
        if rows:
            result = await connection.execute(_INSERT_RETURNING, rows)
            self.own.update(result.scalars().all())

    async def since(
        self, after: int, *, limit: int = 10_000, connection: AsyncConnection | None = None
    ) -> list[Change]:
        rows = await self._db.read(
            _SINCE, {"collection": self.collection, "after": after, "limit": limit}, connection=connection
        )
        return [Change(*row) for row in rows]

    def gap_timeout(self, configured_s: float) -> float:
        """How long a missing id is waited for: not at all where ids commit in order (SQLite)."""
        return 0.0 if self._db.dialect == "sqlite" else configured_s

    async def last_id(self) -> int:
        """The newest entry's id (0: none yet)."""
        rows = await self._db.read(_LAST, {"collection": self.collection})
        return int(rows[0][0])

    async def load_watermark(self) -> int:
        """Where an index loaded from its table starts following: the newest entry, less
        ``LOAD_REPLAY`` where ids can commit out of order."""
        last = await self.last_id()
        return last if self._db.dialect == "sqlite" else max(0, last - LOAD_REPLAY)


class ChangeCursor:
    """Which entries of the feed an index has applied: every id up to ``watermark``, and ``ahead``.

    An entry is applied once, in id order within what one read returns; an id seen missing
    holds the watermark back (entries after it are applied and remembered in ``ahead``) until it
    shows up or ``gap_timeout_s`` has passed.
    """

    def __init__(self, *, gap_timeout_s: float = 60.0, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._gap_timeout_s = gap_timeout_s
        self._monotonic = monotonic
        self.watermark = 0
        self._ahead: set[int] = set()
        self._gap_since: float | None = None

    def reset(self, watermark: int) -> None:
        self.watermark = watermark
        self._ahead.clear()
        self._gap_since = None

    def is_new(self, change_id: int) -> bool:
        return change_id > self.watermark and change_id not in self._ahead

    def applied(self, ids: Iterable[int]) -> None:
        """Mark ``ids`` applied and move the watermark over every id without a gap before it."""
        self._ahead.update(i for i in ids if i > self.watermark)
        while self.watermark + 1 in self._ahead:
            self.watermark += 1
            self._ahead.discard(self.watermark)
        if not self._ahead:
            self._gap_since = None
            return
        now = self._monotonic()
        if self._gap_since is None:
            self._gap_since = now
        elif now - self._gap_since >= self._gap_timeout_s:
            self.watermark += 1  # given up: a rolled-back insert's id
            self._gap_since = None
            self.applied(())


class FeedReads:
    """When a search reads the feed: at most once per ``interval_s`` (0: every search), and
    searches that arrive while one read is under way share it rather than read again."""

    def __init__(self, interval_s: float) -> None:
        self._interval_s = interval_s
        self._at = -float("inf")

    def recent(self, arrived: float) -> bool:
        """The last read is less than ``interval_s`` old: no need to read."""
        return arrived - self._at < self._interval_s

    def shared(self, arrived: float) -> bool:
        """A read began after this search arrived (it waited for that read's lock): it covers it."""
        return self._at >= arrived

    def begin(self) -> None:
        self._at = time.monotonic()
