"""One async SQLAlchemy engine, SQLite (WAL) by default or PostgreSQL (asyncpg).

Every database access goes through this class (``connect``, ``transaction``,
``point_transaction``, ``read``): writes commit everything or nothing, and driver errors
become phronesis's own (``ConflictError``, ``StorageUnavailable``, ``StorageError``), so a
lost connection is a 503 to an HTTP client, never a 500 (``tests/storage/test_boundary.py``
fails if code outside ``storage/`` opens a connection of its own). A decision's hot path
(seed 003's admission) uses ``read`` and ``point_transaction``: on a SQLite file they run on
the lanes of ``sqlite_lanes`` (one thread hop per statement), elsewhere on pooled connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.sql import Executable

from phronesis.exceptions import (
    ConfigurationError,
    ConflictError,
    StorageContention,
    StorageError,
    StorageUnavailable,
)
from phronesis.faults import Fault
from phronesis.storage.point_transaction import PointTransaction, execute, on_connection
from phronesis.storage.sqlite_lanes import BUSY_TIMEOUT_S, Lanes, configure_sqlite, sqlite_connect_args
from phronesis.storage.wal_checkpoints import WalCheckpointer

__all__ = ["Database"]

log = logging.getLogger("phronesis.storage")

T = TypeVar("T")


CONNECT_TIMEOUT_S = 5.0
"""How long opening a PostgreSQL connection may take before the database counts as unavailable."""


@contextlib.contextmanager
def _boundary(fault: Fault) -> Iterator[None]:
    """What every database access runs in: its errors translated, an outage noted in ``fault``."""
    with fault.watching(StorageUnavailable), _translated():  # an outage is logged once, not per request
        yield


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    """Driver errors as phronesis's own: a violated constraint is a conflict; a database that
    cannot be reached, dropped the connection or timed out is unavailable (retry later); the
    rest is a storage error (a bug or a schema problem, not the caller's input)."""
    try:
        yield
    except exc.IntegrityError as error:
        raise ConflictError("(row)", f"constraint violated: {error.orig}") from error
    except exc.OperationalError as error:
        if _sqlite_statement_error(error):
            raise StorageError(f"database error: {_cause(error)}") from error
        raise StorageUnavailable(f"database unavailable: {_cause(error)}") from error
    except (exc.InterfaceError, exc.TimeoutError, OSError, TimeoutError) as error:
        raise StorageUnavailable(f"database unavailable: {_cause(error)}") from error
    except exc.DBAPIError as error:
        if error.connection_invalidated or _postgresql_unavailable(error):
            raise StorageUnavailable(f"database unavailable: {_cause(error)}") from error
        if _sqlstate(error).startswith(_PG_ROLLED_BACK_CLASS):
            raise StorageContention(f"database rolled the call back: {_cause(error)}") from error
        raise StorageError(f"database error: {_cause(error)}") from error


_SQLITE_ERROR = 1
"""SQLite's generic result code: a bad statement (no such table or column, a syntax error). Its
other operational errors (busy, locked, cannot open, I/O, full, read-only) are the file's state."""


def _sqlite_statement_error(error: exc.OperationalError) -> bool:
    """SQLite reports every failure as an operational error; only its result code tells a bad
    statement (a bug: 500) from a file that cannot be used right now (retry: 503)."""
    code = getattr(error.orig, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF == _SQLITE_ERROR


_PG_UNAVAILABLE_CLASSES = ("08", "53", "57P")
"""SQLSTATE classes that say the server, not the statement, failed: connection exceptions (08),
insufficient resources such as too many connections (53), and shutting down, crashed or not
accepting connections yet (57P01-57P03)."""


_PG_ROLLED_BACK_CLASS = "40"
"""SQLSTATE class 40, transaction rollback: a deadlock (40P01) or a serialization failure (40001)
broken by rolling this transaction back. Nothing committed; the same call may succeed at once."""


def _sqlstate(error: exc.DBAPIError) -> str:
    state = getattr(error.orig, "sqlstate", None) or getattr(error.orig, "pgcode", None)
    return state if isinstance(state, str) else ""


def _postgresql_unavailable(error: exc.DBAPIError) -> bool:
    return _sqlstate(error).startswith(_PG_UNAVAILABLE_CLASSES)


def _sqlite_file(database: str) -> str:
    """The SQLite file's path, its folder created if need be."""
    path = Path(database).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file where the folder should be, no permission, …
        raise ConfigurationError(
            f"PHRONESIS_DATABASE__URL / PHRONESIS_DATA_DIR: cannot use {path.parent}: {error.strerror}"
        ) from None
    return str(path)


def _cause(error: BaseException) -> str:
    """The driver's own words, on one line (SQLAlchemy appends the statement and a help link)."""
    original = getattr(error, "orig", None) or error
    text = str(original).strip().splitlines()
    return f"{type(original).__name__}: {text[0]}" if text else type(original).__name__


class Database:
    def __init__(
        self,
        url: str,
        *,
        echo: bool = False,
        pool_size: int = 5,
        search_path: str | None = None,
        hnsw_ef_search: int = 50,
    ) -> None:
        try:
            parsed = make_url(url)
        except exc.ArgumentError as error:
            raise ConfigurationError(f"PHRONESIS_DATABASE__URL: not a database URL ({error})") from None
        self.url = url
        self.dialect = parsed.get_backend_name()
        self.in_memory = self.dialect == "sqlite" and (parsed.database or ":memory:") == ":memory:"
        self.identity = url if search_path is None else f"{url}#search_path={search_path}"
        """Which database this is, for what is kept beside it (index snapshots)."""
        self.fault = Fault("database", log)
        """Whether the database is failing now: logged once per outage, not once per request."""
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._lanes: Lanes | None = None
        """A SQLite file's hot-path lanes (see ``sqlite_lanes``)."""
        self.wal_checkpointer: WalCheckpointer | None = None
        """A SQLite file's WAL checkpoints, off every request's path (see ``wal_checkpoints``)."""
        sqlite_file: str | None = None
        kwargs: dict[str, Any] = {"echo": echo}
        if self.dialect == "sqlite":
            if parsed.drivername != "sqlite+aiosqlite":
                raise ConfigurationError("PHRONESIS_DATABASE__URL: use sqlite+aiosqlite:///PATH")
            if not self.in_memory:
                sqlite_file = _sqlite_file(parsed.database or "")
                url = parsed.set(database=sqlite_file).render_as_string(hide_password=False)
                kwargs["connect_args"] = sqlite_connect_args()
        elif self.dialect == "postgresql":
            if parsed.drivername != "postgresql+asyncpg":
                raise ConfigurationError("PHRONESIS_DATABASE__URL: use postgresql+asyncpg://…")
            kwargs.update(pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True)
            # asyncpg prepares every statement; after five runs PostgreSQL may switch to a generic
            # plan, which for ``user_id IN (1,000 ids)`` reads is 15x slower than a custom one
            # (measured: 1.1 s instead of 75 ms per chunk of a proactive tick)
            server_settings = {
                "plan_cache_mode": "force_custom_plan",
                # pgvector (storage.pgvector), kept as placeholders until it loads: search breadth,
                # and filtered searches that keep scanning until k rows pass the filter
                "hnsw.ef_search": str(hnsw_ef_search),
                "hnsw.iterative_scan": "relaxed_order",
            }
            if search_path:
                server_settings["search_path"] = search_path
            # a connection attempt that lands while the server restarts can wait forever for its
            # answer (asyncpg's default is 60 s): give up after CONNECT_TIMEOUT_S, so a request is
            # a 503 and the next one reconnects (tests/storage/test_outage_processes.py)
            kwargs["connect_args"] = {"server_settings": server_settings, "timeout": CONNECT_TIMEOUT_S}
        else:
            raise ConfigurationError(
                f"PHRONESIS_DATABASE__URL: unsupported database {self.dialect!r} (sqlite or postgresql)"
            )
        try:
            self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        except (exc.ArgumentError, ImportError) as error:
            raise ConfigurationError(f"PHRONESIS_DATABASE__URL: {error}") from None
        self._reads: AsyncEngine = self.engine
        """What ``connect`` checks out: connections in autocommit, so a read outside a transaction
        sends no BEGIN before it and no ROLLBACK when the connection goes back. On PostgreSQL the
        same pool (a pgvector search at 1M: p50 5.5 → 5.4 ms; the pool's pre-ping is another
        0.45 ms, kept: it is what makes the first request after a database restart work); on a
        SQLite file a pool of its own, whose connections are autocommit from the start."""
        if self.dialect == "postgresql":
            self._reads = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        elif self.in_memory:
            configure_sqlite(self.engine.sync_engine, "memory")
        elif sqlite_file is not None:
            configure_sqlite(self.engine.sync_engine, "write")
            self._reads = create_async_engine(url, isolation_level="AUTOCOMMIT", **kwargs)
            configure_sqlite(self._reads.sync_engine, "read")
            self._lanes = Lanes(sqlite_file)
            self.wal_checkpointer = WalCheckpointer(sqlite_file, busy_timeout_ms=int(BUSY_TIMEOUT_S * 1000))

    def _writer_lock(self) -> asyncio.Lock | None:
        """SQLite has one writer at a time. Without this lock concurrent transactions find the
        file locked and sleep in SQLite's busy handler (measured: p99 2.8 s at 32 concurrent
        decisions); with it they queue in the event loop and each commits in about a millisecond.
        """
        if self.dialect != "sqlite":
            return None
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:  # asyncio locks belong to one event loop
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[AsyncConnection]:
        """A pooled connection for reads outside a transaction (each statement stands alone; write
        with ``transaction``), its errors translated."""
        with _boundary(self.fault):
            async with self._reads.connect() as connection:
                yield connection

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        """A connection inside one transaction: committed on exit, rolled back on any error."""
        lock = self._writer_lock()
        with _boundary(self.fault):
            async with lock or contextlib.nullcontext(), self.engine.begin() as connection:
                yield connection
        if self.wal_checkpointer is not None:
            self.wal_checkpointer.committed()

    @asynccontextmanager
    async def point_transaction(self) -> AsyncIterator[PointTransaction]:
        """A transaction whose statements are all point statements (a few rows by key), each run in
        one hop (see ``point_transaction``): committed on exit, rolled back on any error, errors
        translated as ``transaction`` does."""
        if self._lanes is None:
            async with self.transaction() as connection:
                tx = PointTransaction(on_connection(connection))
                yield tx
                await tx.finish()
            return
        writer = self._lanes.writer
        lock = self._writer_lock()
        assert lock is not None
        with _boundary(self.fault):
            async with lock:
                # BEGIN IMMEDIATE (sqlite_lanes.configure_sqlite) with the first statement, COMMIT with the last
                tx = PointTransaction(writer.call, begin=_begin, commit=_commit)
                try:
                    yield tx
                    await tx.finish()
                    if self.wal_checkpointer is not None:
                        self.wal_checkpointer.committed()
                except BaseException:
                    # Queued on the lane's thread at once, behind whatever still runs there (a task
                    # cancelled mid-statement does not stop it), and shielded: a second cancellation
                    # ends this wait, not the rollback, so the next transaction never finds this one open.
                    await asyncio.shield(writer.call(_rollback))
                    raise

    async def unit(self, work: Callable[[Connection], T]) -> T:
        """A transaction whose whole work is one synchronous function of a connection: committed if
        it returns, rolled back if it raises, errors translated as ``transaction`` does. On a SQLite
        file it runs on the writer lane in one thread hop, BEGIN IMMEDIATE to COMMIT; elsewhere with
        ``run_sync`` in a pooled transaction. (The evidence group commit's unit of work.)"""
        if self._lanes is None:
            async with self.transaction() as connection:
                return await connection.run_sync(work)
        lock = self._writer_lock()
        assert lock is not None
        with _boundary(self.fault):
            async with lock:
                # one hop; a caller cancelled meanwhile does not stop it, and it ends its own transaction
                result = await self._lanes.writer.call(partial(_whole, work))
        if self.wal_checkpointer is not None:
            self.wal_checkpointer.committed()
        return result

    @asynccontextmanager
    async def joined(self, connection: AsyncConnection | None) -> AsyncIterator[AsyncConnection]:
        """The caller's connection (so the work commits with its transaction), or a new transaction."""
        if connection is not None:
            yield connection
            return
        async with self.transaction() as own:
            yield own

    @asynccontextmanager
    async def point_joined(self, transaction: PointTransaction | None) -> AsyncIterator[PointTransaction]:
        """``joined`` for point transactions: the caller's (the work commits with it), or a new one."""
        if transaction is not None:
            yield transaction
            return
        async with self.point_transaction() as own:
            yield own

    # ---- point reads ---------------------------------------------------------------------------

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection | None]:
        """What a few ``read`` calls in a row share: nothing on a SQLite file (each runs on the reader
        lane), else one pooled connection, so they cost one checkout instead of one each."""
        if self._lanes is not None:
            yield None
            return
        async with self.connect() as connection:
            yield connection

    async def read(
        self, statement: Executable, parameters: Mapping[str, Any], *, connection: AsyncConnection | None = None
    ) -> list[tuple[Any, ...]]:
        """A short read (a few rows by key) outside any transaction: its rows as tuples.

        On a SQLite file one hop to the reader lane (autocommit, read-only); elsewhere on
        ``connection`` (see ``reading``) or a pooled one."""
        with _boundary(self.fault):
            if self._lanes is not None:
                rows, _ = await self._lanes.reader.call(lambda sync: execute(sync, statement, parameters))
                return rows
            if connection is not None:
                return [tuple(row) for row in await connection.execute(statement, parameters)]
            async with self._reads.connect() as own:
                return [tuple(row) for row in await own.execute(statement, parameters)]

    async def open_lanes(self) -> None:
        """A SQLite file's lanes connected now rather than at the first request that needs them."""
        if self._lanes is not None:
            await self._lanes.open()

    async def check(self) -> None:
        """Return if the database answers a query; raise ``StorageUnavailable`` with the cause if not."""
        from sqlalchemy import text

        async with self.connect() as connection:
            await connection.execute(text("SELECT 1"))

    async def ping(self) -> bool:
        try:
            await self.check()
        except StorageError:
            return False
        return True

    async def dispose(self) -> None:
        await self.engine.dispose()
        if self._reads is not self.engine and self.dialect == "sqlite":
            await self._reads.dispose()
        if self._lanes is not None:
            await self._lanes.close()
        if self.wal_checkpointer is not None:
            await self.wal_checkpointer.close()


def _whole(work: Callable[[Connection], T], connection: Connection) -> T:
    connection.begin()
    try:
        result = work(connection)
    except BaseException:
        connection.rollback()
        raise
    connection.commit()
    return result


def _begin(connection: Connection) -> None:
    connection.begin()


def _commit(connection: Connection) -> None:
    connection.commit()


def _rollback(connection: Connection) -> None:
    connection.rollback()
