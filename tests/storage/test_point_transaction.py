"""Point transactions and point reads: the same results on every database, all or nothing,
errors translated; on a SQLite file they run on the lanes (see test_sqlite_lanes)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Column, Connection, Integer, MetaData, String, Table, bindparam, func, insert, select, update

from phronesis.exceptions import ConflictError
from phronesis.storage.database import Database

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
    """The reader lane is autocommit: no snapshot outlives its statement."""
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


async def test_a_unit_of_work_commits_whole_or_not_at_all(db: Database) -> None:
    """``Database.unit``: one synchronous function, one transaction, on every database."""

    def two_rows(connection: Connection) -> int:
        connection.execute(INSERT, [{"id": "a", "n": 1}, {"id": "b", "n": 2}])
        return int(connection.execute(COUNT).scalar_one())

    assert await db.unit(two_rows) == 2  # it sees its own writes

    def then_fails(connection: Connection) -> None:
        connection.execute(BUMP, {"w_id": "a", "by": 10})
        raise RuntimeError("the caller's own failure")

    with pytest.raises(RuntimeError):
        await db.unit(then_fails)
    with pytest.raises(ConflictError):
        await db.unit(lambda connection: connection.execute(INSERT, {"id": "a", "n": 3}))
    assert await db.read(BY_IDS, {"ids": ["a", "b"]}) == [("a", 1), ("b", 2)]
