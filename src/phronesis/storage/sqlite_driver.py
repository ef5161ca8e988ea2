"""An asyncio SQLite connection whose point statements cost no thread hop at all.

SQLAlchemy's aiosqlite adapter hops to aiosqlite's thread four times per SELECT (open a
cursor, execute, fetch, close), and each hop is a queue put, a thread wake-up and an
event-loop wake-up: measured 0.6–1.1 ms per statement on a 2-core VM, which made the
round trips, not SQLite, most of a decision's latency (seed 003's admission issues ~9
statements). Here a cursor is a plain object, and ``execute`` runs the statement *and*
reads the first rows in one hop; small results never hop again, large ones are still
read in bounded pages.

Even one hop (measured: 183 µs for an empty round trip) is thirty times what a point
statement costs SQLite (6 µs), so short statements run on the event loop's own thread:

- a SELECT runs inline under a time budget (``READ_BUDGET_S``, checked by SQLite's progress
  handler); past it the statement is interrupted and run again on the worker thread. A
  read-only statement interrupted is simply abandoned: nothing is rolled back;
- an INSERT/UPDATE/DELETE runs inline only inside ``point_writes()`` (the caller vouches that
  its writes touch a few rows by key): an interrupted write would roll back the whole
  transaction, so writes are never budgeted, and bulk writes stay on the thread;
- inline, SQLite never waits for a lock (busy timeout 0): a statement that finds the file
  locked by another process fails at once with SQLITE_BUSY, having done nothing, and is run
  again on the worker thread, which waits up to the busy timeout. Waiting never happens on
  the event loop;
- COMMIT and ROLLBACK of a point transaction run inline too (SQLite's automatic WAL checkpoint,
  which would copy pages and sync inside a COMMIT, is handed to ``WalCheckpointer``'s thread);
- bulk ``executemany`` (more than ``POINT_ROWS`` rows), DDL, and the COMMIT of a bulk
  transaction stay on the thread.

It plugs into SQLAlchemy through ``create_async_engine(..., async_creator=...)`` with the
``sqlite+aiosqlite`` dialect: the adapter only needs aiosqlite's connection shape, and
errors are sqlite3's own classes, which that dialect already maps.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial
from typing import Any, Final, Literal, TypeVar, cast

from phronesis.storage.wal_checkpoints import WalCheckpointer

__all__ = [
    "BUSY_TIMEOUT_MS",
    "POINT_ROWS",
    "PREFETCH",
    "READ_BUDGET_S",
    "SqliteConnection",
    "SqliteConnector",
    "point_writes",
    "statement_kind",
]

T = TypeVar("T")

PREFETCH = 256
"""Rows read together with the statement: an admission's reads fit, a full scan is paged."""

BUSY_TIMEOUT_MS = 10_000
"""How long a statement on the worker thread waits for another process's lock before "database is locked"."""

READ_BUDGET_S = 0.002
"""How long a SELECT may hold the event loop before it is moved to the worker thread."""

PROGRESS_STEPS = 1000
"""SQLite virtual-machine steps between two looks at the read budget."""

POINT_ROWS = 64
"""Parameter sets an ``executemany`` inside ``point_writes()`` may have and still run inline."""

_SQLITE_BUSY = 5
_SQLITE_INTERRUPT = 9

_DEFERRED: Final = object()
"""``SqliteConnection.inline``'s answer when the statement must run on the worker thread after all."""

_point_writes: ContextVar[bool] = ContextVar("phronesis_sqlite_point_writes", default=False)


@contextmanager
def point_writes() -> Iterator[None]:
    """Within this block, single INSERT/UPDATE/DELETE statements run on the event loop's thread."""
    token = _point_writes.set(True)
    try:
        yield
    finally:
        _point_writes.reset(token)


def _is_point_write(parameter_sets: int) -> bool:
    """Inside ``point_writes()``, a write of at most ``POINT_ROWS`` parameter sets."""
    return _point_writes.get() and parameter_sets <= POINT_ROWS


def statement_kind(operation: str) -> Literal["read", "write", "other"]:
    """ "read" for a SELECT, "write" for single-table DML, "other" (DDL, PRAGMA, WITH…) for the rest.
    A ``WITH`` may wrap a write, so it is not taken for a read."""
    head = operation.lstrip()[:7].upper()
    if head.startswith("SELECT"):
        return "read"
    if head.startswith(("INSERT", "UPDATE", "DELETE", "REPLACE")):
        return "write"
    return "other"


class SqliteCursor:
    def __init__(self, connection: SqliteConnection) -> None:
        self._connection = connection
        self._cursor: sqlite3.Cursor | None = None
        self._rows: deque[Any] = deque()
        self._exhausted = True
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self.arraysize = 1

    async def __aenter__(self) -> SqliteCursor:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    def _run(self, operation: str, parameters: Sequence[Any] | None, many: bool) -> list[Any]:
        cursor = self._cursor or self._connection.raw.cursor()
        self._cursor = cursor
        if many:
            cursor.executemany(operation, parameters or [])
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        return cursor.fetchmany(PREFETCH) if cursor.description else []

    async def _start(self, operation: str, parameters: Sequence[Any] | None, *, many: bool) -> None:
        call = partial(self._run, operation, parameters, many)
        kind = statement_kind(operation)
        rows = await self._connection.perform(
            call,
            read=kind == "read" and not many,
            # an executemany inline only for a point write's few rows (a run's references), not a bulk load
            point_write=kind == "write" and _is_point_write(len(parameters or ()) if many else 1),
        )
        assert self._cursor is not None
        self.description, self.rowcount, self.lastrowid = (
            self._cursor.description,
            self._cursor.rowcount,
            self._cursor.lastrowid,
        )
        self._rows = deque(rows)
        self._exhausted = self.description is None or len(rows) < PREFETCH

    async def execute(self, operation: str, parameters: Sequence[Any] | None = None) -> SqliteCursor:
        await self._start(operation, parameters, many=False)
        return self

    async def executemany(self, operation: str, parameters: Sequence[Any]) -> SqliteCursor:
        await self._start(operation, parameters, many=True)
        return self

    async def _more(self, size: int | None) -> None:
        """Read further rows (``None``: all of them) past what the first hop brought."""
        if self._exhausted or self._cursor is None:
            return
        cursor = self._cursor
        rows = await self._connection.run(cursor.fetchall if size is None else partial(cursor.fetchmany, size))
        self._rows.extend(rows)
        self._exhausted = size is None or len(rows) < size

    async def fetchone(self) -> Any:
        if not self._rows:
            await self._more(PREFETCH)
        return self._rows.popleft() if self._rows else None

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        wanted = size or self.arraysize
        if len(self._rows) < wanted:
            await self._more(max(wanted - len(self._rows), PREFETCH))
        return [self._rows.popleft() for _ in range(min(wanted, len(self._rows)))]

    async def fetchall(self) -> list[Any]:
        await self._more(None)
        rows, self._rows = list(self._rows), deque()
        return rows

    async def close(self) -> None:
        # closing a sqlite3 cursor only finalises its statement: cheap, no hop needed
        if self._cursor is not None:
            self._cursor.close()
            self._cursor = None
        self._rows.clear()


class SqliteConnection:
    """aiosqlite's connection shape over one sqlite3 connection and its own worker thread.

    One thread per connection: sqlite3 connections are not for concurrent use, and
    SQLAlchemy already serialises a connection's statements.
    """

    def __init__(
        self,
        raw: sqlite3.Connection,
        worker: ThreadPoolExecutor,
        *,
        busy_timeout_ms: int,
        checkpointer: WalCheckpointer | None = None,
    ) -> None:
        self.raw = raw
        self._worker = worker
        self._checkpointer = checkpointer
        self._connection: sqlite3.Connection | None = raw  # SQLAlchemy tests it before commit/rollback
        self._busy_timeout_ms = busy_timeout_ms
        self._busy_now = busy_timeout_ms  # as sqlite3.connect(timeout=…) left it
        # calls running on (or queued for) the worker thread, counted until they finish there: a task
        # cancelled while awaiting one does not stop it, and nothing may run inline meanwhile
        self._on_thread = 0
        self._counting = threading.Lock()

    def _busy(self, milliseconds: int) -> None:
        if self._busy_now != milliseconds:
            self.raw.execute(f"PRAGMA busy_timeout={int(milliseconds)}")
            self._busy_now = milliseconds

    def _waiting(self, call: Callable[[], T]) -> T:
        """On the worker thread: SQLite may wait for another process's lock here."""
        self._busy(self._busy_timeout_ms)
        return call()

    async def run(self, call: Callable[[], T]) -> T:
        """``call`` on the worker thread."""
        if self._connection is None:
            raise sqlite3.ProgrammingError("no active connection")
        with self._counting:
            self._on_thread += 1
        try:
            future = self._worker.submit(self._waiting, call)
        except BaseException:
            self._finished()
            raise
        future.add_done_callback(lambda _: self._finished())
        return await asyncio.wrap_future(future)

    def _finished(self) -> None:
        with self._counting:
            self._on_thread -= 1

    async def perform(self, call: Callable[[], T], *, read: bool = False, point_write: bool = False) -> T:
        """``call`` on the event loop's thread when it may run there (a read, under the read budget;
        a write the caller vouches is a point write) and ``inline`` does not defer it; otherwise on
        the worker thread."""
        outcome = self.inline(call, budget=read) if read or point_write else _DEFERRED
        if outcome is _DEFERRED:
            return await self.run(call)
        return cast(T, outcome)

    def inline(self, call: Callable[[], T], *, budget: bool) -> T | object:
        """``call`` on the calling (event-loop) thread, or ``_DEFERRED`` if it must go to the worker
        thread after all: the file is locked (SQLITE_BUSY: the statement did nothing), or a read ran out
        of its budget (SQLITE_INTERRUPT: a read-only statement is abandoned, nothing rolled back)."""
        if self._connection is None:
            raise sqlite3.ProgrammingError("no active connection")
        if self._on_thread:
            # a call is still on the thread (the connector's reader is shared by concurrent tasks; a
            # cancelled task does not stop its statement): running beside it would hold the event
            # loop on the connection's mutex, and its read budget could interrupt that statement.
            # Queued behind it on the thread instead.
            return _DEFERRED
        self._busy(0)
        if budget:
            deadline = time.perf_counter() + READ_BUDGET_S
            self.raw.set_progress_handler(lambda: time.perf_counter() > deadline, PROGRESS_STEPS)
        try:
            return call()
        except sqlite3.OperationalError as error:
            if getattr(error, "sqlite_errorcode", 0) & 0xFF in (_SQLITE_BUSY, _SQLITE_INTERRUPT):
                return _DEFERRED
            raise
        finally:
            if budget:
                self.raw.set_progress_handler(None, 0)

    def _direct(self, sql: str, parameters: Sequence[Sequence[Any]]) -> tuple[list[Any], int]:
        many = len(parameters) != 1
        cursor = self.raw.executemany(sql, parameters) if many else self.raw.execute(sql, parameters[0])
        try:
            return (cursor.fetchall() if cursor.description else []), cursor.rowcount
        finally:
            cursor.close()

    async def direct(self, sql: str, parameters: Sequence[Sequence[Any]], *, read: bool) -> tuple[list[Any], int]:
        """One statement with one or more parameter sets, outside SQLAlchemy (see ``sqlite_statements``):
        its rows (all of them) and row count. Inline on the event loop like a cursor's point statement:
        a read under the read budget, a write only inside ``point_writes()`` and for at most
        ``POINT_ROWS`` parameter sets; otherwise on the worker thread."""
        call = partial(self._direct, sql, parameters)
        return await self.perform(call, read=read, point_write=not read and _is_point_write(len(parameters)))

    @property
    def isolation_level(self) -> str | None:
        return self.raw.isolation_level

    def cursor(self) -> SqliteCursor:
        return SqliteCursor(self)

    async def execute(self, operation: str, parameters: Sequence[Any] | None = None) -> SqliteCursor:
        return await self.cursor().execute(operation, parameters)

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        await self.run(partial(self.raw.create_function, *args, **kwargs))

    async def _end(self, end: Callable[[], None], *, commit: bool) -> None:
        """COMMIT or ROLLBACK: inline for a point transaction, on the thread for a bulk one."""
        point = _point_writes.get()
        await self.perform(end, point_write=point)
        if commit and self._checkpointer is not None:
            self._checkpointer.committed(bulk=not point)

    async def begin(self) -> None:
        """BEGIN IMMEDIATE on an autocommit connection (``SqliteConnector.writer``): the write lock from
        the start, so the transaction's reads and writes see one state. Another process's lock is
        waited for on the worker thread (see ``inline``)."""
        await self.direct("BEGIN IMMEDIATE", [()], read=False)

    # The pool resets every returned connection with a rollback, and a read-only use never
    # opened a transaction (sqlite3 begins one lazily, before the first write): nothing to do then.
    async def commit(self) -> None:
        if self.raw.in_transaction:
            await self._end(self.raw.commit, commit=True)

    async def rollback(self) -> None:
        if self.raw.in_transaction:
            await self._end(self.raw.rollback, commit=False)

    async def close(self) -> None:
        if self._connection is None:
            return
        try:
            await self.run(self.raw.close)
        finally:
            self._connection = None
            self._worker.shutdown(wait=False)

    def stop(self) -> None:
        """SQLAlchemy's forced terminate: drop the connection without waiting for the thread."""
        self._connection = None
        self._worker.shutdown(wait=False, cancel_futures=True)


class SqliteConnector:
    """The ``async_creator`` for a database path (``:memory:`` or a file), and the WAL checkpointer
    its connections share. ``busy_timeout_ms``: how long a statement on the worker thread waits
    for another process's lock."""

    def __init__(self, database: str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self._database = database
        self._busy_timeout_ms = busy_timeout_ms
        self._in_memory = database == ":memory:" or "mode=memory" in database
        self._reader: SqliteConnection | None = None
        self._writer: SqliteConnection | None = None
        self.checkpointer = None if self._in_memory else WalCheckpointer(database, busy_timeout_ms=busy_timeout_ms)

    def _open(self, *, autocommit: bool = False, read_only: bool = False) -> sqlite3.Connection:
        raw = sqlite3.connect(
            self._database,
            timeout=self._busy_timeout_ms / 1000,
            check_same_thread=False,
            uri=self._database.startswith("file:"),
            # autocommit: sqlite3 opens no transaction by itself; the owner says BEGIN when it means it
            isolation_level=None if autocommit else "DEFERRED",
        )
        # WAL lets readers proceed while one writer commits. (The busy timeout, which makes a second
        # writer wait instead of failing with "database is locked", is set above and in SqliteConnection.)
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute("PRAGMA synchronous=NORMAL")
        raw.execute("PRAGMA foreign_keys=ON")
        # A decision's reads touch a few index pages and rows scattered over a file that grows
        # to gigabytes (1M runs with their embeddings): map it rather than copy every page in
        # through read(), and keep more of the hot B-tree pages per connection than the 2 MB default.
        raw.execute("PRAGMA mmap_size=1073741824")
        raw.execute("PRAGMA cache_size=-16384")
        if self.checkpointer is not None:
            raw.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer's job (see wal_checkpoints)
        if read_only:
            raw.execute("PRAGMA query_only=ON")
        return raw

    def _own(self, role: str, *, read_only: bool) -> SqliteConnection:
        # opening a local file is a fraction of a millisecond, once: no thread hop for it
        worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"phronesis-sqlite-{role}")
        return SqliteConnection(
            self._open(autocommit=True, read_only=read_only),
            worker,
            busy_timeout_ms=self._busy_timeout_ms,
            checkpointer=None if read_only else self.checkpointer,
        )

    def reader(self) -> SqliteConnection | None:
        """A connection of its own for short reads outside any transaction, shared by every task:
        autocommit (each SELECT sees the latest commit and ends at once, so no pool checkout and no
        reset rollback) and read-only. None for an in-memory database, which a second connection
        would not see."""
        if self._in_memory:
            return None
        if self._reader is None:
            self._reader = self._own("reader", read_only=True)
        return self._reader

    def writer(self) -> SqliteConnection | None:
        """A connection of its own for point transactions (``Database.point_transaction``), used by one
        task at a time under the database's writer lock; autocommit, so BEGIN and COMMIT are its
        owner's. None for an in-memory database."""
        if self._in_memory:
            return None
        if self._writer is None:
            self._writer = self._own("writer", read_only=False)
        return self._writer

    async def __call__(self) -> SqliteConnection:
        worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="phronesis-sqlite")
        try:
            raw = await asyncio.get_running_loop().run_in_executor(worker, self._open)
        except BaseException:
            worker.shutdown(wait=False)
            raise
        return SqliteConnection(raw, worker, busy_timeout_ms=self._busy_timeout_ms, checkpointer=self.checkpointer)

    async def close(self) -> None:
        for own in (self._reader, self._writer):
            if own is not None:
                await own.close()
        self._reader = self._writer = None
        if self.checkpointer is not None:
            await self.checkpointer.close()
