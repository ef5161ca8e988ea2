"""One async SQLAlchemy engine, SQLite (WAL) by default or PostgreSQL (asyncpg).

Every write goes through ``transaction()``, which commits everything or nothing and
translates driver errors into phronesis's own (``ConflictError``, ``StorageError``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from phronesis.exceptions import ConfigurationError, ConflictError, StorageError
from phronesis.storage.sqlite_driver import SqliteConnector, point_writes
from phronesis.storage.wal_checkpoints import WalCheckpointer

__all__ = ["Database"]


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers proceed while one writer commits. (The busy timeout, which makes a second
    # writer wait instead of failing with "database is locked", belongs to the driver: see
    # SqliteConnector.)
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    # A decision's reads touch a few index pages and rows scattered over a file that grows
    # to gigabytes (1M runs with their embeddings): map it rather than copy every page in
    # through read(), and keep more of the hot B-tree pages per connection than the 2 MB default.
    cursor.execute("PRAGMA mmap_size=1073741824")
    cursor.execute("PRAGMA cache_size=-16384")
    cursor.close()


class Database:
    def __init__(
        self,
        url: str,
        *,
        echo: bool = False,
        pool_size: int = 5,
        search_path: str | None = None,
    ) -> None:
        try:
            parsed = make_url(url)
        except exc.ArgumentError as error:
            raise ConfigurationError(f"PHRONESIS_DATABASE__URL: not a database URL ({error})") from None
        self.url = url
        self.dialect = parsed.get_backend_name()
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._sqlite: SqliteConnector | None = None
        kwargs: dict[str, Any] = {"echo": echo}
        if self.dialect == "sqlite":
            if parsed.drivername != "sqlite+aiosqlite":
                raise ConfigurationError("PHRONESIS_DATABASE__URL: use sqlite+aiosqlite:///PATH")
            database = parsed.database or ""
            if database and database != ":memory:":
                Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
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
            server_settings = {"plan_cache_mode": "force_custom_plan"}
            if search_path:
                server_settings["search_path"] = search_path
            kwargs["connect_args"] = {"server_settings": server_settings}
        else:
            raise ConfigurationError(
                f"PHRONESIS_DATABASE__URL: unsupported database {self.dialect!r} (sqlite or postgresql)"
            )
        try:
            self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        except (exc.ArgumentError, ImportError) as error:
            raise ConfigurationError(f"PHRONESIS_DATABASE__URL: {error}") from None
        if self.dialect == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)

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
    async def transaction(self, *, point: bool = False) -> AsyncIterator[AsyncConnection]:
        """A connection inside one transaction: committed on exit, rolled back on any error.

        ``point``: every write in it is a point write (a few rows by key, no bulk statement), so
        on SQLite it may run on the event loop's thread without a hop (see ``sqlite_driver``).
        """
        lock = self._writer_lock()
        try:
            with point_writes() if point else contextlib.nullcontext():
                async with lock or contextlib.nullcontext(), self.engine.begin() as connection:
                    yield connection
        except exc.IntegrityError as error:
            raise ConflictError("(row)", f"constraint violated: {error.orig}") from error
        except (exc.OperationalError, exc.InterfaceError, OSError) as error:
            raise StorageError(f"database unavailable: {error}") from error
        except exc.DBAPIError as error:
            raise StorageError(f"database error: {error.orig}") from error

    @asynccontextmanager
    async def joined(self, connection: AsyncConnection | None) -> AsyncIterator[AsyncConnection]:
        """The caller's connection (so the work commits with its transaction), or a new transaction."""
        if connection is not None:
            yield connection
            return
        async with self.transaction() as own:
            yield own

    async def ping(self) -> bool:
        from sqlalchemy import text

        try:
            async with self.engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
        except (exc.DBAPIError, OSError):
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
