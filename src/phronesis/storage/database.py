"""One async SQLAlchemy engine, SQLite (WAL) by default or PostgreSQL (asyncpg).

Every database access goes through this class (``connect``, ``transaction``,
``point_transaction``, ``read``): writes commit everything or nothing, and driver errors
become phronesis's own (``ConflictError``, ``StorageUnavailable``, ``StorageError``), so a
lost connection is a 503 to an HTTP client, never a 500 (``tests/storage/test_boundary.py``
fails if code outside ``storage/`` opens a connection of its own). A decision's hot path
(seed 003's admission) uses ``read`` and ``point_transaction``: on a SQLite file they bypass
SQLAlchemy's per-statement machinery (see ``sqlite_statements`` and ``point_transaction``),
elsewhere they are SQLAlchemy calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.sql import Executable

from phronesis.exceptions import ConfigurationError, ConflictError, StorageError, StorageUnavailable
from phronesis.faults import Fault
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.sqlite_driver import SqliteConnection, SqliteConnector, point_writes
from phronesis.storage.sqlite_statements import SqliteStatements
from phronesis.storage.wal_checkpoints import WalCheckpointer

__all__ = ["Database"]

log = logging.getLogger("phronesis.storage")


CONNECT_TIMEOUT_S = 5.0
"""How long opening a PostgreSQL connection may take before the database counts as unavailable."""


def _remember_driver(dbapi_connection: Any, record: Any) -> None:
    """Keep the driver's connection where ``AsyncConnection.info`` reaches it without a greenlet hop."""
    record.info[_DRIVER] = dbapi_connection.driver_connection


_DRIVER = "phronesis.sqlite_connection"


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


def _postgresql_unavailable(error: exc.DBAPIError) -> bool:
    state = getattr(error.orig, "sqlstate", None) or getattr(error.orig, "pgcode", None)
    return isinstance(state, str) and state.startswith(_PG_UNAVAILABLE_CLASSES)


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
        hnsw_ef_search: int = 100,
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
        self._sqlite: SqliteConnector | None = None
        kwargs: dict[str, Any] = {"echo": echo}
        if self.dialect == "sqlite":
            if parsed.drivername != "sqlite+aiosqlite":
                raise ConfigurationError("PHRONESIS_DATABASE__URL: use sqlite+aiosqlite:///PATH")
            database = parsed.database or ""
            if database and database != ":memory:":
                folder = Path(database).expanduser().parent
                try:
                    folder.mkdir(parents=True, exist_ok=True)
                except OSError as error:  # a file where the folder should be, no permission, …
                    raise ConfigurationError(
                        f"PHRONESIS_DATABASE__URL / PHRONESIS_DATA_DIR: cannot use {folder}: {error.strerror}"
                    ) from None
            # point statements on the event loop, the rest in one hop instead of aiosqlite's four (see sqlite_driver)
            self._sqlite = SqliteConnector(str(Path(database).expanduser()) if database else ":memory:")
            kwargs["async_creator"] = self._sqlite
        elif self.dialect == "postgresql":
            if parsed.drivername != "postgresql+asyncpg":
                raise ConfigurationError("PHRONESIS_DATABASE__URL: use postgresql+asyncpg://…")
            kwargs.update(pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True)
            # asyncpg prepares every statement; after five runs PostgreSQL may switch to a generic
            # plan, which for ``user_id IN (1,000 ids)`` reads was 15x slower than a custom one
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
        """What ``connect`` checks out. On PostgreSQL the same pool in autocommit: a read outside a
        transaction sends no BEGIN before it and no ROLLBACK when the connection goes back (a
        pgvector search at 1M: p50 5.5 → 5.4 ms; the pool's pre-ping is another 0.45 ms, kept:
        it is what makes the first request after a database restart work)."""
        if self.dialect == "postgresql":
            self._reads = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self._statements: SqliteStatements | None = None
        if self.dialect == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _remember_driver)
            self._statements = SqliteStatements(self.engine.sync_engine.dialect)

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
    async def transaction(self, *, point: bool = False) -> AsyncIterator[AsyncConnection]:
        """A connection inside one transaction: committed on exit, rolled back on any error.

        ``point``: every write in it is a point write (a few rows by key, no bulk statement), so
        on SQLite it may run on the event loop's thread without a hop (see ``sqlite_driver``).
        """
        lock = self._writer_lock()
        with _boundary(self.fault), point_writes() if point else contextlib.nullcontext():
            async with lock or contextlib.nullcontext(), self.engine.begin() as connection:
                yield connection

    @asynccontextmanager
    async def point_transaction(self) -> AsyncIterator[PointTransaction]:
        """A transaction whose statements are all point statements (a few rows by key), run the
        cheapest way this database allows (see ``point_transaction``): committed on exit, rolled
        back on any error, errors translated as ``transaction`` does."""
        writer = self._sqlite.writer() if self._sqlite is not None else None
        if writer is None:
            async with self.transaction(point=True) as connection:
                yield PointTransaction(
                    connection=connection, driver=self._driver(connection), statements=self._statements
                )
            return
        lock = self._writer_lock()
        assert lock is not None
        with _boundary(self.fault), point_writes():
            async with lock:
                await writer.begin()
                try:
                    yield PointTransaction(connection=None, driver=writer, statements=self._statements)
                    await writer.commit()
                except BaseException:
                    await writer.rollback()
                    raise

    @asynccontextmanager
    async def joined(self, connection: AsyncConnection | None) -> AsyncIterator[AsyncConnection]:
        """The caller's connection (so the work commits with its transaction), or a new transaction."""
        if connection is not None:
            yield connection
            return
        async with self.transaction() as own:
            yield own

    # ---- point statements -------------------------------------------------------------------
    # A decision's reads and writes are a few rows by key, and on SQLite SQLAlchemy's machinery
    # costs ten times what SQLite does for them: there, these run the same Core statements
    # compiled once, straight on the driver (see sqlite_statements); on PostgreSQL, and for any
    # statement the direct path cannot bind, through SQLAlchemy.

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection | None]:
        """What a few ``read`` calls in a row share: nothing on a SQLite file (each runs on the shared
        reader), else one pooled connection, so they cost one checkout instead of one each."""
        if self._sqlite is not None and self._sqlite.reader() is not None:
            yield None
            return
        async with self.connect() as connection:
            yield connection

    async def read(
        self, statement: Executable, parameters: Mapping[str, Any], *, connection: AsyncConnection | None = None
    ) -> list[tuple[Any, ...]]:
        """A short read (a few rows by key) outside any transaction: its rows as tuples.

        On a SQLite file it runs on the connector's shared autocommit reader, with no pool
        checkout and no reset rollback; elsewhere on ``connection`` (see ``reading``) or a pooled one."""
        reader = self._sqlite.reader() if self._sqlite is not None else None
        with _boundary(self.fault):
            if reader is not None and self._statements is not None:
                done = await self._statements.execute(reader, statement, parameters)
                if done is not None:
                    return done[0]
            if connection is not None:
                return [tuple(row) for row in await connection.execute(statement, parameters)]
            async with self._reads.connect() as own:
                return [tuple(row) for row in await own.execute(statement, parameters)]

    def _driver(self, connection: AsyncConnection) -> SqliteConnection | None:
        if self._statements is None:
            return None
        driver = connection.info.get(_DRIVER)
        return driver if isinstance(driver, SqliteConnection) else None

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

    @property
    def wal_checkpointer(self) -> WalCheckpointer | None:
        """SQLite file databases: what copies the WAL into the file (see ``wal_checkpoints``)."""
        return self._sqlite.checkpointer if self._sqlite is not None else None

    async def dispose(self) -> None:
        await self.engine.dispose()
        if self._sqlite is not None:
            await self._sqlite.close()
