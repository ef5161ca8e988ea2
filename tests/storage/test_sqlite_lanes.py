"""A SQLite file's statements never run on the event loop: the hot path's reads and point
transactions run on the lanes' threads, everything else on aiosqlite's; another process's write
lock is waited for there; a cancelled transaction leaves nothing behind and blocks nothing; WAL
checkpoints run on a thread of their own."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Column, Engine, Integer, MetaData, String, Table, event, func, insert, select, text

from phronesis.exceptions import StorageError
from phronesis.storage.database import Database
from phronesis.storage.sqlite_lanes import BUSY_TIMEOUT_S
from phronesis.storage.wal_checkpoints import CHECKPOINT_EVERY, WalCheckpointer
from tests.loop_watch import watching_the_loop

things = Table("lane_things", MetaData(), Column("id", String(16), primary_key=True), Column("n", Integer))
COUNT = select(func.count()).select_from(things)


@pytest.fixture
def thread_ids() -> Iterator[None]:
    """Every SQLite connection opened meanwhile has a ``tid()`` SQL function: the thread running it."""

    def register(dbapi_connection: Any, _record: Any) -> None:
        raw = getattr(dbapi_connection, "driver_connection", dbapi_connection)
        target = raw if isinstance(raw, sqlite3.Connection) else None
        if target is not None:
            target.create_function("tid", 0, threading.get_ident)
        else:  # aiosqlite's connection: registered on its own thread
            dbapi_connection.create_function("tid", 0, threading.get_ident)

    event.listen(Engine, "connect", register)
    yield
    event.remove(Engine, "connect", register)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'lanes.db'}")
    async with database.transaction() as conn:
        await conn.run_sync(things.metadata.create_all)
    yield database
    await database.dispose()


async def test_no_statement_runs_on_the_event_loops_thread(thread_ids: None, db: Database) -> None:
    loop_thread = threading.get_ident()
    async with db.point_transaction() as tx:
        await tx.insert([(insert(things), [{"id": "a", "n": 1}])])
        rows, _ = await tx.execute(select(func.tid()), {})
        in_point = rows[0][0]
    (in_read,) = (await db.read(select(func.tid()), {}))[0]
    async with db.transaction() as conn:
        in_transaction = (await conn.execute(text("SELECT tid()"))).scalar_one()
    async with db.connect() as conn:
        in_connect = (await conn.execute(text("SELECT tid()"))).scalar_one()
    assert loop_thread not in {in_point, in_read, in_transaction, in_connect}
    assert in_point != in_read  # the writer lane and the reader lane are threads of their own


async def test_the_reader_lane_cannot_write(db: Database) -> None:
    with pytest.raises(StorageError, match="readonly"):
        await db.read(insert(things).values(id="x", n=1), {})
    assert await db.read(COUNT, {}) == [(0,)]


async def test_a_long_read_holds_its_lane_not_the_event_loop(db: Database) -> None:
    side = 220
    async with db.point_transaction() as tx:
        await tx.insert([(insert(things), [{"id": f"{i:05d}", "n": i} for i in range(side)])])
    a, b, c = things.alias("a"), things.alias("b"), things.alias("c")
    slow = select(func.count()).select_from(a).join(b, a.c.n >= b.c.n).join(c, c.c.n >= 0)
    async with watching_the_loop() as watch:
        started = time.perf_counter()
        rows = await db.read(slow, {})
        took = time.perf_counter() - started
    assert rows == [(side * (side + 1) // 2 * side,)]
    assert took > 0.2  # long enough that holding the loop would show…
    assert watch.longest_gap < 0.1  # …and it did not


@pytest.mark.parametrize("how", ["transaction", "point transaction"])
async def test_another_processs_write_lock_is_waited_for_off_the_event_loop(db: Database, how: str) -> None:
    """BEGIN IMMEDIATE waits in SQLite's busy handler on the driver's thread until the lock is free."""
    holder = sqlite3.connect(db.url.removeprefix("sqlite+aiosqlite:///"), check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.4, holder.commit)
    release.start()
    started = time.perf_counter()
    try:
        async with watching_the_loop() as watch:
            if how == "point transaction":
                async with db.point_transaction() as tx:
                    await tx.insert([(insert(things), [{"id": "a", "n": 1}])])
            else:
                async with db.transaction() as conn:
                    await conn.execute(insert(things).values(id="a", n=1))
    finally:
        release.join()
        holder.close()
    assert await db.read(COUNT, {}) == [(1,)]
    assert time.perf_counter() - started >= 0.35  # it did wait for the lock…
    assert watch.longest_gap < 0.2  # …and not on the event loop
    assert BUSY_TIMEOUT_S >= 1


async def test_a_transaction_reads_and_writes_one_state_with_another_process_writing(db: Database) -> None:
    """BEGIN IMMEDIATE: another process cannot commit between this transaction's read and its write
    (a deferred transaction would fail its first write with SQLITE_BUSY_SNAPSHOT instead)."""
    path = db.url.removeprefix("sqlite+aiosqlite:///")
    other_committed = threading.Event()

    def other_process() -> None:
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
        connection.execute("INSERT INTO lane_things (id, n) VALUES ('other', 1)")
        connection.commit()
        connection.close()
        other_committed.set()

    async with db.point_transaction() as tx:
        rows, _ = await tx.execute(COUNT, {})
        before = rows[0][0]
        writer = threading.Thread(target=other_process)
        writer.start()
        await asyncio.sleep(0.2)
        assert not other_committed.is_set()  # it waits for this transaction's lock
        await tx.insert([(insert(things), [{"id": "mine", "n": before}])])
    await asyncio.to_thread(writer.join)
    assert other_committed.is_set()
    assert await db.read(select(things.c.id, things.c.n).order_by(things.c.id), {}) == [("mine", 0), ("other", 1)]


async def test_a_cancelled_point_transaction_leaves_nothing_and_the_next_one_works(db: Database) -> None:
    """Cancelling the task does not stop a statement already running on the writer's thread; the
    rollback queues behind it there, so nothing of it is committed and the loop never waits."""
    # two million rows made by SQLite itself: long, and all of it in SQLite (which lets go of the GIL)
    many = text(
        "INSERT INTO lane_things (id, n) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
        "WHERE x < 2000000) SELECT printf('%07d', x), x FROM c"
    )

    async def bulk() -> None:
        async with db.point_transaction() as tx:
            await tx.execute(many, {})

    for cancels in (1, 2):  # a second cancellation lands while the rollback is queued
        task = asyncio.create_task(bulk())
        await asyncio.sleep(0.05)
        async with watching_the_loop() as watch:
            for _ in range(cancels):
                task.cancel()
                await asyncio.sleep(0)
            with pytest.raises(asyncio.CancelledError):
                await task
        assert watch.longest_gap < 0.2
        async with db.point_transaction() as tx:
            await tx.insert([(insert(things), [{"id": f"after{cancels}", "n": 1}])])
        assert await db.read(COUNT, {}) == [(cancels,)]


async def test_an_unreadable_database_is_a_storage_error(tmp_path: Path) -> None:
    (tmp_path / "not-a-db").write_bytes(b"this is not an sqlite file" * 100)
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'not-a-db'}")
    try:
        with pytest.raises(StorageError):
            async with database.transaction() as conn:
                await conn.execute(text("SELECT 1 FROM sqlite_master"))
        with pytest.raises(StorageError):
            await database.read(select(text("1")).select_from(text("sqlite_master")), {})
    finally:
        await database.dispose()


async def test_a_closed_database_refuses_hot_path_work(db: Database) -> None:
    await db.dispose()
    with pytest.raises(RuntimeError, match="closed"):
        await db.read(COUNT, {})


# ---- WAL checkpoints: never inside a request's COMMIT, on the checkpointer's thread ----


async def test_commits_are_checkpointed_by_the_checkpointer_not_by_sqlite(db: Database) -> None:
    async with db.connect() as conn:
        assert (await conn.execute(text("PRAGMA wal_autocheckpoint"))).scalar_one() == 0
    checkpointer = db.wal_checkpointer
    assert checkpointer is not None and checkpointer.checkpoints == 0
    for i in range(CHECKPOINT_EVERY // 2):
        async with db.point_transaction() as tx:
            await tx.insert([(insert(things), [{"id": f"p{i}", "n": i}])])
        async with db.transaction() as conn:
            await conn.execute(insert(things).values(id=f"t{i}", n=i))
    await wait_for(lambda: checkpointer.checkpoints >= 1)
    assert await db.read(COUNT, {}) == [(CHECKPOINT_EVERY,)]


async def test_a_failed_checkpoint_is_a_warning_not_a_failed_request(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    checkpointer = WalCheckpointer(str(tmp_path / "no-such-dir" / "x.db"), busy_timeout_ms=100, every=1)
    with caplog.at_level(logging.WARNING, logger="phronesis.storage"):
        checkpointer.committed()
        await wait_for(lambda: "WAL checkpoint" in caplog.text)
    assert checkpointer.checkpoints == 0
    await checkpointer.close()


async def test_an_in_memory_database_has_no_lanes_and_no_checkpointer() -> None:
    database = Database("sqlite+aiosqlite:///:memory:")
    assert database.wal_checkpointer is None
    async with database.transaction() as conn:
        await conn.run_sync(things.metadata.create_all)
    async with database.point_transaction() as tx:
        await tx.insert([(insert(things), [{"id": "a", "n": 1}])])
    assert await database.read(COUNT, {}) == [(1,)]
    await database.dispose()


async def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)
