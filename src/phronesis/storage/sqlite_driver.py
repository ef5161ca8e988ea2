"""An asyncio SQLite connection that costs one thread hop per statement.

SQLAlchemy's aiosqlite adapter hops to aiosqlite's thread four times per SELECT (open a
cursor, execute, fetch, close), and each hop is a queue put, a thread wake-up and an
event-loop wake-up: measured 0.6–1.1 ms per statement on a 2-core VM, which made the
round trips, not SQLite, most of a decision's latency (seed 003's admission issues ~9
statements). Here a cursor is a plain object, and ``execute`` runs the statement *and*
reads the first rows in one hop; small results never hop again, large ones are still
read in bounded pages. SQLite's own waiting (``busy_timeout`` on a locked file) still
happens on the worker thread, never on the event loop.

It plugs into SQLAlchemy through ``create_async_engine(..., async_creator=...)`` with the
``sqlite+aiosqlite`` dialect: the adapter only needs aiosqlite's connection shape, and
errors are sqlite3's own classes, which that dialect already maps.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

__all__ = ["SqliteConnection", "connector"]

T = TypeVar("T")

PREFETCH = 256
"""Rows read together with the statement: an admission's reads fit, a full scan is paged."""


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
        rows = await self._connection.run(partial(self._run, operation, parameters, many))
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

    def __init__(self, raw: sqlite3.Connection, worker: ThreadPoolExecutor) -> None:
        self.raw = raw
        self._worker = worker
        self._connection: sqlite3.Connection | None = raw  # SQLAlchemy tests it before commit/rollback

    async def run(self, call: Callable[[], T]) -> T:
        if self._connection is None:
            raise sqlite3.ProgrammingError("no active connection")
        return await asyncio.get_running_loop().run_in_executor(self._worker, call)

    @property
    def isolation_level(self) -> str | None:
        return self.raw.isolation_level

    def cursor(self) -> SqliteCursor:
        return SqliteCursor(self)

    async def execute(self, operation: str, parameters: Sequence[Any] | None = None) -> SqliteCursor:
        return await self.cursor().execute(operation, parameters)

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        await self.run(partial(self.raw.create_function, *args, **kwargs))

    # The pool resets every returned connection with a rollback, and a read-only use never
    # opened a transaction (sqlite3 begins one lazily, before the first write): no hop then.
    async def commit(self) -> None:
        if self.raw.in_transaction:
            await self.run(self.raw.commit)

    async def rollback(self) -> None:
        if self.raw.in_transaction:
            await self.run(self.raw.rollback)

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


def connector(database: str) -> Callable[[], Any]:
    """The ``async_creator`` for a database path (``:memory:`` or a file)."""

    async def connect() -> SqliteConnection:
        worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="phronesis-sqlite")
        try:
            raw = await asyncio.get_running_loop().run_in_executor(
                worker,
                partial(sqlite3.connect, database, check_same_thread=False, uri=database.startswith("file:")),
            )
        except BaseException:
            worker.shutdown(wait=False)
            raise
        return SqliteConnection(raw, worker)

    return connect
