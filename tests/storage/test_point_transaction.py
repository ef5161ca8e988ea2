"""Point transactions and point reads: the same results on every database, all or nothing,
errors translated; on a SQLite file they run on the connector's own writer and reader."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, func, insert, select, update

from phronesis.exceptions import ConflictError
from phronesis.storage import sqlite_driver
from phronesis.storage.database import Database
from tests.loop_watch import watching_the_loop

things = Table("point_things", MetaData(), Column("id", String(16), primary_key=True), Column("n", Integer))
INSERT = insert(things)
BUMP = update(things).where(things.c.id == bindparam("w_id")).values(n=things.c.n + bindparam("by"))
BY_IDS = select(things.c.id, things.c.n).where(things.c.id.in_(bindparam("ids", expanding=True))).order_by(things.c.id)
COUNT = select(func.count()).select_from(things)


async def with_things(database: Database) -> Database:
    async with database.engine.begin() as conn:
        await conn.run_sync(things.metadata.drop_all)
        await conn.run_sync(things.metadata.create_all)
    return database


@pytest.fixture
async def db(database: Database) -> AsyncIterator[Database]:
    yield await with_things(database)
    async with database.engine.begin() as conn:
        await conn.run_sync(things.metadata.drop_all)


@pytest.fixture
async def memory_db() -> AsyncIterator[Database]:
    database = Database("sqlite+aiosqlite:///:memory:")
    yield await with_things(database)
    await database.dispose()


async def test_statements_commit_together_with_their_rows_and_counts(db: Database) -> None:
    async with db.point_transaction() as tx:
        await tx.insert([(INSERT, [{"id": "a", "n": 1}, {"id": "b", "n": 2}]), (INSERT, [{"id": "c", "n": 3}])])
        rows, _ = await tx.execute(BY_IDS, {"ids": ["a", "c"]})
        assert rows == [("a", 1), ("c", 3)]  # the transaction sees its own writes
        _, count = await tx.execute(BUMP, {"w_id": "b", "by": 10})
        assert count == 1
        _, count = await tx.execute(BUMP, {"w_id": "nobody", "by": 10})
        assert count == 0
    assert await db.read(BY_IDS, {"ids": ["a", "b", "c", "d"]}) == [("a", 1), ("b", 12), ("c", 3)]


async def test_a_failed_point_transaction_writes_nothing_and_the_next_one_works(db: Database) -> None:
    with pytest.raises(ConflictError, match="constraint"):
        async with db.point_transaction() as tx:
            await tx.insert([(INSERT, [{"id": "a", "n": 1}])])
            await tx.execute(BUMP, {"w_id": "a", "by": 1})
            await tx.insert([(INSERT, [{"id": "a", "n": 2}])])  # the same key again
    assert await db.read(COUNT, {}) == [(0,)]
    with pytest.raises(RuntimeError):
        async with db.point_transaction() as tx:
            await tx.insert([(INSERT, [{"id": "b", "n": 1}])])
            raise RuntimeError("the caller's own failure")
    assert await db.read(COUNT, {}) == [(0,)]
    async with db.point_transaction() as tx:
        await tx.insert([(INSERT, [{"id": "a", "n": 1}])])
    assert await db.read(BY_IDS, {"ids": ["a"]}) == [("a", 1)]


async def test_an_in_memory_database_runs_point_statements_on_its_pooled_connection(memory_db: Database) -> None:
    async with memory_db.point_transaction() as tx:
        await tx.insert([(INSERT, [{"id": "a", "n": 1}])])
        await tx.execute(BUMP, {"w_id": "a", "by": 1})
    assert await memory_db.read(BY_IDS, {"ids": ["a"]}) == [("a", 2)]


async def test_a_point_read_sees_every_commit_at_once(tmp_path: Path) -> None:
    """The shared reader is autocommit: no snapshot outlives its statement."""
    database = await with_things(Database(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}"))
    other = sqlite3.connect(tmp_path / "r.db")
    try:
        for n in range(3):
            other.execute("INSERT INTO point_things (id, n) VALUES (?, ?)", (f"x{n}", n))
            other.commit()
            assert await database.read(COUNT, {}) == [(n + 1,)]
    finally:
        other.close()
        await database.dispose()


async def test_the_shared_reader_cannot_write(tmp_path: Path) -> None:
    connector = sqlite_driver.SqliteConnector(str(tmp_path / "ro.db"))
    reader = connector.reader()
    assert reader is not None
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        await reader.direct("CREATE TABLE nope (id INTEGER)", [()], read=False)
    await connector.close()
    assert sqlite_driver.SqliteConnector(":memory:").reader() is None


async def test_concurrent_reads_share_the_reader_while_one_runs_on_its_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read past its budget moves to the reader's thread; reads started meanwhile queue behind it
    there instead of running inline, which would hold the event loop on the connection's mutex
    (and let their read budget interrupt the statement on the thread) for as long as it runs."""
    database = await with_things(Database(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}"))
    side = 200
    async with database.point_transaction() as tx:
        await tx.insert([(INSERT, [{"id": f"{i:05d}", "n": i} for i in range(side)])])
    a, b, c = things.alias("a"), things.alias("b"), things.alias("c")
    slow = select(func.count()).select_from(a).join(b, a.c.n >= b.c.n).join(c, c.c.n >= 0)
    quick_started: list[float] = []

    async def timed_slow() -> list[tuple[object, ...]]:
        rows = await database.read(slow, {})
        nonlocal slow_done
        slow_done = time.perf_counter()
        return rows

    async def quick(i: int) -> list[tuple[object, ...]]:
        await asyncio.sleep(0.02 + i * 0.01)  # while the slow read runs on the thread
        quick_started.append(time.perf_counter())
        return await database.read(BY_IDS, {"ids": [f"{i:05d}"]})

    slow_done = 0.0
    async with watching_the_loop() as watch:
        results = await asyncio.gather(timed_slow(), *(quick(i) for i in range(10)))
    assert results[0] == [(side * (side + 1) // 2 * side,)]
    assert results[1:] == [[(f"{i:05d}", i)] for i in range(10)]
    assert min(quick_started) < slow_done  # they did start while the slow read ran
    assert watch.longest_gap < 0.1
    await database.dispose()


async def test_a_cancelled_point_transaction_leaves_nothing_even_with_a_statement_still_on_the_thread(
    tmp_path: Path,
) -> None:
    """Cancelling the task does not stop a bulk statement already running on the writer's thread; the
    rollback queues behind it there instead of running inline beside it, which would hold the event
    loop on the connection's mutex until the bulk statement is done. Nothing of it is committed."""
    database = await with_things(Database(f"sqlite+aiosqlite:///{tmp_path / 'cancel.db'}"))
    rows = [{"id": f"{i:07d}", "n": i} for i in range(200_000)]

    async def bulk() -> None:
        async with database.point_transaction() as tx:
            await tx.insert([(INSERT, rows)])  # far past POINT_ROWS: on the writer's thread

    task = asyncio.create_task(bulk())
    await asyncio.sleep(0.02)  # the rows are bound on the loop; by now the statement runs on the thread
    task.cancel()
    async with watching_the_loop() as watch:
        with pytest.raises(asyncio.CancelledError):
            await task
    assert await database.read(COUNT, {}) == [(0,)]
    assert watch.longest_gap < 0.2  # the rollback waited on the thread, not on the event loop
    async with database.point_transaction() as tx:
        await tx.insert([(INSERT, [{"id": "after", "n": 1}])])
    assert await database.read(COUNT, {}) == [(1,)]
    await database.dispose()
