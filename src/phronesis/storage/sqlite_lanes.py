"""SQLite on a file: how its connections are set up, and the hot path's statements on threads of their own.

Everything here uses SQLAlchemy's and the standard library's public APIs only: the ``connect``
and ``begin`` events of SQLAlchemy's SQLite documentation, ``create_engine``, a synchronous
``Connection``, and a one-thread ``ThreadPoolExecutor``. No statement runs on the event loop.

Through the ``sqlite+aiosqlite`` dialect a statement crosses to aiosqlite's thread four times
(open a cursor, execute, fetch, close), each a queue put, a thread wake-up and an event-loop
wake-up. A decision's hot path (seed 003's admission: its reads by key and one point
transaction of about eight statements) runs instead on a **lane**: a synchronous SQLAlchemy
connection that one thread owns, where each statement, or a whole unit of work, is one hop
(``Lane.call``). The rest of phronesis uses the stock async engine.

Transactions that write begin with ``BEGIN IMMEDIATE``: the write lock is taken at the start,
so what a transaction reads and what it writes see one state even with other processes (the
CLI, more API workers) on the same file, and a second writer waits for the lock in SQLite's
busy handler, on the driver's thread, up to ``BUSY_TIMEOUT_S``. Reads run in autocommit: each
SELECT sees the latest commit and holds nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event

__all__ = ["BUSY_TIMEOUT_S", "Lane", "Lanes", "configure_sqlite", "sqlite_connect_args"]

T = TypeVar("T")

BUSY_TIMEOUT_S = 10.0
"""How long a statement waits for another process's write lock before "database is locked"."""

_PRAGMAS = (
    # WAL lets readers proceed while one writer commits
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    # A decision's reads touch a few index pages and rows scattered over a file that grows to
    # gigabytes (1M runs with their embeddings): map it rather than copy every page in through
    # read(), and keep more of the hot B-tree pages per connection than the 2 MB default.
    "PRAGMA mmap_size=1073741824",
    "PRAGMA cache_size=-16384",
    # copying the WAL back is wal_checkpoints' job, on a thread no request waits for
    "PRAGMA wal_autocheckpoint=0",
)

Role = Literal["write", "read", "memory"]


def sqlite_connect_args() -> dict[str, Any]:
    """``connect_args`` for a SQLite file: how long to wait for another process's lock."""
    return {"timeout": BUSY_TIMEOUT_S}


def configure_sqlite(engine: Engine, role: Role) -> None:
    """Set up every connection ``engine`` opens on a SQLite file (SQLAlchemy's documented recipe,
    "Serializable isolation / Savepoints / Transactional DDL"): the pragmas above; the driver's
    own transaction handling off (``isolation_level = None``), so the ``begin`` event says when a
    transaction starts. A ``write`` engine begins with ``BEGIN IMMEDIATE``; a ``read`` engine's
    connections are read-only and autocommit (create it with ``isolation_level="AUTOCOMMIT"``). An
    in-memory database (one connection that concurrent tasks share) keeps the driver's lazy
    transactions, which a read never opens: only the pragmas that apply to it."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        if role != "memory":
            dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            for pragma in _PRAGMAS if role != "memory" else ("PRAGMA foreign_keys=ON",):
                cursor.execute(pragma)
            if role == "read":
                cursor.execute("PRAGMA query_only=ON")
        finally:
            cursor.close()

    if role == "write":

        @event.listens_for(engine, "begin")
        def _begin(connection: Connection) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")


class Lane:
    """One synchronous connection and the one thread that uses it.

    ``call`` runs a unit of work on that thread and awaits it: one hop, however many statements
    the work runs. Calls run in the order they were made; a caller cancelled while its work runs
    does not stop that work, and later calls queue behind it."""

    def __init__(self, engine: Engine, name: str) -> None:
        self._engine = engine
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"phronesis-sqlite-{name}")
        self._connection: Connection | None = None  # only ever touched on the thread
        self._closed = False

    def _on_thread(self, work: Callable[[Connection], T]) -> T:
        connection = self._connection
        if connection is None or connection.invalidated or connection.closed:
            if connection is not None:
                connection.close()
            connection = self._connection = self._engine.connect()
        return work(connection)

    async def call(self, work: Callable[[Connection], T]) -> T:
        """``work(connection)`` on the lane's thread."""
        if self._closed:
            raise RuntimeError("the database is closed")
        return await asyncio.get_running_loop().run_in_executor(self._thread, self._on_thread, work)

    def _close_connection(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await asyncio.get_running_loop().run_in_executor(self._thread, self._close_connection)
        finally:
            self._thread.shutdown(wait=False)


def _nothing(_: Connection) -> None:
    return None


class Lanes:
    """The hot path's two lanes on one SQLite file: ``reader`` (autocommit, read-only; every task's
    short reads) and ``writer`` (point transactions, one at a time under the database's writer lock)."""

    def __init__(self, path: str) -> None:
        url = f"sqlite:///{path}"
        self._engines = (
            create_engine(url, connect_args=sqlite_connect_args(), pool_size=1),
            create_engine(url, connect_args=sqlite_connect_args(), pool_size=1, isolation_level="AUTOCOMMIT"),
        )
        configure_sqlite(self._engines[0], "write")
        configure_sqlite(self._engines[1], "read")
        self.writer = Lane(self._engines[0], "writer")
        self.reader = Lane(self._engines[1], "reader")

    async def open(self) -> None:
        """Connect both lanes now (their threads, connections and pragmas), not at a request's first
        statement: a server does it before it answers. Opens no transaction."""
        await asyncio.gather(self.writer.call(_nothing), self.reader.call(_nothing))

    async def close(self) -> None:
        try:
            await self.writer.close()
            await self.reader.close()
        finally:
            for engine in self._engines:
                engine.dispose()
