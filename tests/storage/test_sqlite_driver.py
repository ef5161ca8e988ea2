"""The SQLite connection behaves as a DB-API driver under SQLAlchemy: results of any size,
sqlite3's errors, rollback, waiting for a locked file off the event loop; point statements
run on the event loop's thread, long reads and bulk writes on the worker thread, and WAL
checkpoints on the checkpointer's."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.exceptions import ConflictError, StorageError
from phronesis.storage.database import Database
from phronesis.storage.sqlite_driver import (
    BUSY_TIMEOUT_MS,
    POINT_ROWS,
    PREFETCH,
    SqliteConnection,
    SqliteConnector,
    statement_kind,
)
from phronesis.storage.wal_checkpoints import CHECKPOINT_EVERY, WalCheckpointer
from tests.loop_watch import watching_the_loop


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


async def test_a_closed_connection_refuses_work(tmp_path: Path) -> None:
    connection = await SqliteConnector(str(tmp_path / "c.db"))()
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


# ---- where statements run: the event loop's thread, or the connection's worker thread ----


@pytest.fixture
async def threaded_db(tmp_path: Path) -> AsyncIterator[Database]:
    """A database whose ``tid()`` SQL function says which thread ran the statement."""
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'threads.db'}")

    @event.listens_for(database.engine.sync_engine, "connect")
    def register(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.driver_connection.raw.create_function("tid", 0, threading.get_ident)

    async with database.transaction() as conn:
        await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)"))
    yield database
    await database.dispose()


async def thread_of(conn: AsyncConnection, row_id: int) -> int:
    return int((await conn.execute(text("SELECT v FROM t WHERE id = :id"), {"id": row_id})).scalar_one())


async def test_a_point_statement_runs_on_the_event_loops_thread(threaded_db: Database) -> None:
    here = threading.get_ident()
    async with threaded_db.engine.connect() as conn:
        assert (await conn.execute(text("SELECT tid()"))).scalar_one() == here
    async with threaded_db.transaction(point=True) as conn:
        await conn.execute(text("INSERT INTO t (id, v) VALUES (1, tid())"))
        few = [{"id": i} for i in range(10, 10 + POINT_ROWS)]
        await conn.execute(text("INSERT INTO t (id, v) VALUES (:id, tid())"), few)
    async with threaded_db.transaction() as conn:  # not vouched for as point writes: the worker thread
        await conn.execute(text("INSERT INTO t (id, v) VALUES (2, tid())"))
    async with threaded_db.transaction(point=True) as conn:  # a bulk executemany: the worker thread
        many = [{"id": i} for i in range(1000, 1001 + POINT_ROWS)]
        await conn.execute(text("INSERT INTO t (id, v) VALUES (:id, tid())"), many)
    async with threaded_db.engine.connect() as conn:
        assert await thread_of(conn, 1) == here and await thread_of(conn, 10 + POINT_ROWS - 1) == here
        assert await thread_of(conn, 2) != here and await thread_of(conn, 1000) != here


async def test_a_long_read_moves_to_the_worker_thread_and_the_loop_keeps_serving(threaded_db: Database) -> None:
    """Past its budget a SELECT is interrupted and run again on the thread: the answer is whole,
    the transaction around it keeps its writes, and the event loop was never held for long."""
    side = 150
    async with threaded_db.transaction() as conn:
        await conn.execute(text("INSERT INTO t (id, v) VALUES (:id, 0)"), [{"id": -i} for i in range(1, side + 1)])
    async with watching_the_loop() as watch, threaded_db.transaction(point=True) as conn:
        await conn.execute(text("INSERT INTO t (id, v) VALUES (1, 1)"))
        count, thread = (
            await conn.execute(text("SELECT (SELECT count(*) FROM t a, t b, t c WHERE a.id < 0), tid()"))
        ).one()
        await conn.execute(text("INSERT INTO t (id, v) VALUES (2, 2)"))
    assert count == side * (side + 1) ** 2  # b and c also see the row just inserted
    assert thread != threading.get_ident()
    async with threaded_db.engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM t WHERE id > 0"))).scalar_one() == 2
    assert watch.longest_gap < 0.25  # the read took seconds; the loop only ever waited for its budget


@pytest.mark.parametrize("how", ["transaction", "point writes", "point transaction"])
async def test_a_locked_file_is_waited_for_on_the_worker_thread(tmp_path: Path, how: str) -> None:
    """Another process holds the write lock. The wait happens on the connection's thread, so the
    event loop keeps serving until the lock is released; a point write (or the point transaction's
    BEGIN IMMEDIATE) first tried inline fails at once without waiting, having done nothing, and is
    run again there."""
    path = tmp_path / "locked-point.db"
    database = Database(f"sqlite+aiosqlite:///{path}")
    async with database.transaction() as conn:
        await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY)"))
    holder = sqlite3.connect(path, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.4, holder.commit)
    release.start()
    started = time.perf_counter()
    try:
        async with watching_the_loop() as watch:
            if how == "point transaction":
                async with database.point_transaction() as tx:
                    await tx.execute(text("INSERT INTO t (id) VALUES (1)"), {})
            else:
                async with database.transaction(point=how == "point writes") as conn:
                    await conn.execute(text("INSERT INTO t (id) VALUES (1)"))
    finally:
        release.join()
        holder.close()
    async with database.engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM t"))).scalar_one() == 1
    await database.dispose()
    assert time.perf_counter() - started >= 0.35  # it did wait for the lock…
    assert watch.longest_gap < 0.2  # …and not on the event loop


@pytest.mark.parametrize(
    ("operation", "kind"),
    [
        ("SELECT 1", "read"),
        ("  select id FROM t", "read"),
        ("INSERT INTO t VALUES (1)", "write"),
        ("INSERT OR IGNORE INTO t VALUES (1)", "write"),
        ("update t SET v = 1", "write"),
        ("DELETE FROM t", "write"),
        ("REPLACE INTO t VALUES (1)", "write"),
        ("WITH x AS (SELECT 1) DELETE FROM t", "other"),  # a WITH may wrap a write: never budgeted
        ("CREATE TABLE u (id INTEGER)", "other"),
        ("PRAGMA journal_mode", "other"),
        ("SAVEPOINT sa_1", "other"),
    ],
)
def test_statement_kinds(operation: str, kind: str) -> None:
    assert statement_kind(operation) == kind


# ---- WAL checkpoints: off the pool's connections, on the checkpointer's thread ----


async def test_point_commits_are_checkpointed_by_the_checkpointer(sqlite_db: Database) -> None:
    async with sqlite_db.engine.connect() as conn:
        assert (await conn.execute(text("PRAGMA wal_autocheckpoint"))).scalar_one() == 0
    checkpointer = sqlite_db.wal_checkpointer
    assert checkpointer is not None and checkpointer.checkpoints == 0
    for i in range(CHECKPOINT_EVERY):
        async with sqlite_db.transaction(point=True) as conn:
            await conn.execute(text("INSERT INTO t (id, v) VALUES (:id, 'x')"), {"id": i})
    await wait_for(lambda: checkpointer.checkpoints >= 1)
    async with sqlite_db.transaction() as conn:  # a bulk commit is checkpointed at once
        await conn.execute(text("INSERT INTO t (id, v) VALUES (:id, 'y')"), [{"id": -i} for i in range(1, 2000)])
    await wait_for(lambda: checkpointer.checkpoints >= 2)
    async with sqlite_db.engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM t"))).scalar_one() == CHECKPOINT_EVERY + 1999


async def test_a_failed_checkpoint_is_a_warning_not_a_failed_request(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    checkpointer = WalCheckpointer(str(tmp_path / "no-such-dir" / "x.db"), busy_timeout_ms=BUSY_TIMEOUT_MS)
    with caplog.at_level(logging.WARNING, logger="phronesis.storage"):
        checkpointer.committed(bulk=True)
        await wait_for(lambda: "WAL checkpoint" in caplog.text)
    assert checkpointer.checkpoints == 0
    await checkpointer.close()


async def test_an_in_memory_database_has_no_checkpointer() -> None:
    database = Database("sqlite+aiosqlite:///:memory:")
    assert database.wal_checkpointer is None
    await database.dispose()


async def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)
