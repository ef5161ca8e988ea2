"""The change feed every in-process vector index follows (ARCHITECTURE: "one mechanism").

Whatever changes a searched set of vectors (a heuristic added, re-embedded, moved to another
domain or deleted; a run admitted or superseded; a document added or deleted) appends a row
to ``index_changes`` in the same transaction as the change. Each process's index reads the
entries after the last one it applied, so a write committed by any process (the CLI, another
API worker, a Celery worker) reaches every other process's searches.

Ids are never used twice (SQLite ``AUTOINCREMENT``, a PostgreSQL sequence), even after a
rollback, and the collections share them: a read returns every collection's ids after the
cursor (``FeedPage.passed``: another collection's entry is committed, nothing for this index,
and no gap), so the only gaps are uncommitted or rolled-back inserts. On SQLite writers are
serialised, so ids commit in order and a gap is a rolled-back insert, passed over at once. On
PostgreSQL they can commit out of order: ``ChangeCursor`` waits ``gap_timeout_s`` for an id it
saw missing, rather than skip it, so a slow transaction's entry is not lost; a rolled-back
insert leaves a gap that is given up after the timeout.

Why not filter the reads to one collection: every other collection's id would look like a gap,
and with gaps given up one id per read an index whose collection started after another's (runs
admitted on a database that already held heuristics) would read every entry since it started on
each search, 300 rows at the 300th admission.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Generic, Literal, TypeVar

from sqlalchemy import Integer, bindparam, func, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.storage.database import Database
from phronesis.storage.tables import index_changes

__all__ = [
    "FEED_PAGE",
    "INSERT_CHANGES",
    "Change",
    "ChangeCursor",
    "ChangeLog",
    "Collection",
    "FeedPage",
    "FeedReads",
    "Op",
    "change_rows",
    "feed_page",
]

Collection = Literal["heuristics", "runs", "passages", "examples"]
Op = Literal["add", "remove"]

LOAD_REPLAY: Final = 1000
"""Entries before the newest one that a load replays on a database whose ids can commit out of
order (PostgreSQL): a transaction that took its id before the load read the newest id, and
committed after the load read the rows, is applied then. Re-applying an entry is harmless."""

_c = index_changes.c
INSERT_CHANGES: Final = insert(index_changes)
_INSERT_RETURNING: Final = INSERT_CHANGES.returning(index_changes.c.id)
FEED_PAGE: Final = 10_000
"""Entries (of every collection) one read of the feed returns at most."""

_SINCE: Final = (
    select(_c.id, _c.collection, _c.tenant, _c.key, _c.op)
    .where(_c.id > bindparam("after"))
    .order_by(_c.id)
    .limit(bindparam("limit", type_=Integer))
)
_LAST: Final = select(func.coalesce(func.max(_c.id), 0))

E = TypeVar("E")


@dataclass(frozen=True, slots=True)
class FeedPage(Generic[E]):
    """One read of the feed after a cursor, as one collection's index sees it."""

    entries: list[E]
    """This collection's entries, in id order."""
    passed: list[int]
    """The ids of other collections' entries: committed, so no gap, and nothing to apply here."""
    full: bool
    """The read returned its limit: read again once these are applied."""

    def ids(self, applied: Iterable[int]) -> list[int]:
        """What the cursor marks applied after this page: ``applied`` and the passed ids."""
        return [*applied, *self.passed]


def feed_page(
    rows: Sequence[Sequence[Any]], collection: Collection, limit: int, entry: Callable[..., E]
) -> FeedPage[E]:
    """Split rows of ``(id, collection, *fields)`` into ``entry(id, *fields)`` of ``collection`` and passed ids."""
    entries: list[E] = []
    passed: list[int] = []
    for change_id, of, *fields in rows:
        if of == collection:
            entries.append(entry(change_id, *fields))
        else:
            passed.append(change_id)
    return FeedPage(entries, passed, full=len(rows) >= limit)


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
        self, after: int, *, limit: int = FEED_PAGE, connection: AsyncConnection | None = None
    ) -> FeedPage[Change]:
        """The entries after ``after``: this collection's, and the ids of the others' it passes."""
        rows = await self._db.read(_SINCE, {"after": after, "limit": limit}, connection=connection)
        return feed_page(rows, self.collection, limit, Change)

    def gap_timeout(self, configured_s: float) -> float:
        """How long a missing id is waited for: not at all where ids commit in order (SQLite)."""
        return 0.0 if self._db.dialect == "sqlite" else configured_s

    async def last_id(self) -> int:
        """The feed's newest id, of any collection (0: none yet): a cursor passes the others' ids too."""
        rows = await self._db.read(_LAST, {})
        return int(rows[0][0])

    async def load_watermark(self) -> int:
        """Where an index loaded from its table starts following: the feed's newest entry, less
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
        self._gap: tuple[float, int] | None = None
        """When the oldest gap was first seen, and the highest id applied then."""

    def reset(self, watermark: int) -> None:
        self.watermark = watermark
        self._ahead.clear()
        self._gap = None

    def is_new(self, change_id: int) -> bool:
        return change_id > self.watermark and change_id not in self._ahead

    def applied(self, ids: Iterable[int]) -> None:
        """Mark ``ids`` applied and move the watermark over every id without a gap before it.

        A gap is timed from the read that first saw it, together with every other id missing
        below the highest one applied then: once ``gap_timeout_s`` has passed (at once where it is
        0) all of them are given up in one step, not one id per read."""
        self._ahead.update(i for i in ids if i > self.watermark)
        self._advance()
        if not self._ahead:
            self._gap = None
            return
        now = self._monotonic()
        if self._gap is None:
            self._gap = (now, max(self._ahead))
        since, ceiling = self._gap
        if now - since >= self._gap_timeout_s:
            # given up: rolled-back inserts' ids (or, on PostgreSQL, a transaction that never committed)
            self.watermark = max(self.watermark, ceiling)
            self._ahead = {i for i in self._ahead if i > self.watermark}
            self._advance()
            self._gap = (now, max(self._ahead)) if self._ahead else None

    def _advance(self) -> None:
        while self.watermark + 1 in self._ahead:
            self.watermark += 1
            self._ahead.discard(self.watermark)


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
