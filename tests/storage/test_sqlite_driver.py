"""The one-hop SQLite connection behaves as a DB-API driver under SQLAlchemy: results of any
size, sqlite3's errors, rollback, and waiting for a locked file off the event loop."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text

from phronesis.exceptions import ConflictError, StorageError
from phronesis.storage.database import Database
from phronesis.storage.sqlite_driver import PREFETCH, SqliteConnection, connector


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    async with database.transaction() as conn:
        await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)"))
    yield database
    await database.dispose()


async def fill(database: Database, rows: int) -> None:
    if not rows:
        return
    async with database.transaction() as conn:
        await conn.execute(
            text("INSERT INTO t (id, v) VALUES (:id, :v)"), [{"id": i, "v": f"v{i}"} for i in range(rows)]
        )


@pytest.mark.parametrize("rows", [0, 1, PREFETCH - 1, PREFETCH, PREFETCH + 1, 3 * PREFETCH + 7])
async def test_every_row_is_read_whatever_the_size(sqlite_db: Database, rows: int) -> None:
    await fill(sqlite_db, rows)
    async with sqlite_db.engine.connect() as conn:
        everything = (await conn.execute(text("SELECT id FROM t ORDER BY id"))).scalars().all()
        one = (await conn.execute(text("SELECT id FROM t ORDER BY id"))).first()
    assert everything == list(range(rows))
    assert one == ((0,) if rows else None)


async def test_streamed_results_come_in_pages(sqlite_db: Database) -> None:
    await fill(sqlite_db, 2 * PREFETCH + 3)
    async with sqlite_db.engine.connect() as conn:
        result = await conn.stream(text("SELECT id FROM t ORDER BY id"))
        seen = [row[0] async for partition in result.partitions(100) for row in partition]
    assert seen == list(range(2 * PREFETCH + 3))


async def test_rowcount_and_a_failed_transaction_rolls_back(sqlite_db: Database) -> None:
    await fill(sqlite_db, 5)
    async with sqlite_db.transaction() as conn:
        changed = await conn.execute(text("UPDATE t SET v = 'x' WHERE id < 3"))
    assert changed.rowcount == 3
    with pytest.raises(ConflictError, match="UNIQUE"):
        async with sqlite_db.transaction() as conn:
            await conn.execute(text("INSERT INTO t (id, v) VALUES (100, 'new')"))
            await conn.execute(text("INSERT INTO t (id, v) VALUES (1, 'clash')"))
    async with sqlite_db.engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM t"))).scalar() == 5


async def test_a_locked_file_is_waited_for_off_the_event_loop(tmp_path: Path) -> None:
    """Another process holding the write lock: the wait happens on the connection's thread,
    so the event loop keeps serving (here: a ticker) until the lock is released."""
    path = tmp_path / "locked.db"
    database = Database(f"sqlite+aiosqlite:///{path}")
    async with database.transaction() as conn:
        await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY)"))
    holder = sqlite3.connect(path, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.4, holder.commit)
    release.start()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    try:
        async with database.transaction() as conn:
            await conn.execute(text("INSERT INTO t (id) VALUES (1)"))
    finally:
        ticking.cancel()
        release.join()
        holder.close()
        await database.dispose()
    assert ticks >= 10


async def test_a_closed_connection_refuses_work(tmp_path: Path) -> None:
    connection = await connector(str(tmp_path / "c.db"))()
    assert isinstance(connection, SqliteConnection)
    await connection.close()
    await connection.close()  # closing twice is harmless
    with pytest.raises(sqlite3.ProgrammingError, match="no active connection"):
        await connection.execute("SELECT 1")


async def test_an_unreadable_database_is_a_storage_error(tmp_path: Path) -> None:
    (tmp_path / "not-a-db").write_bytes(b"this is not an sqlite file" * 100)
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'not-a-db'}")
    with pytest.raises(StorageError):
        async with database.transaction() as conn:
            await conn.execute(text("SELECT 1 FROM sqlite_master"))
    await database.dispose()
