"""One error boundary for storage (issue 20): every database access goes through ``Database``,
which turns driver errors into ``StorageUnavailable`` (503), ``ConflictError`` (409) or
``StorageError`` (500); a transaction PostgreSQL rolls back to break a deadlock is
``StorageContention`` (503, retry now)."""

from __future__ import annotations

import ast
import asyncio
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from sqlalchemy import text

from phronesis.exceptions import ConflictError, StorageContention, StorageError, StorageUnavailable
from phronesis.storage.database import Database
from phronesis.storage.tables import heuristics

SRC = Path(__file__).resolve().parents[2] / "src" / "phronesis"
BOUNDARY = {SRC / "storage" / "database.py"}
RAW = {"connect", "begin", "raw_connection", "execute", "sync_engine"}


def _raw_uses(path: Path) -> Iterator[str]:
    """``<anything>.engine.<connect|begin|…>``: a connection that bypasses the translation."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in RAW
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "engine"
        ):
            yield f"{path.relative_to(SRC.parent)}:{node.lineno}: .engine.{node.attr}"


def test_no_code_outside_the_boundary_opens_a_connection_of_its_own() -> None:
    found = [use for path in sorted(SRC.rglob("*.py")) if path not in BOUNDARY for use in _raw_uses(path)]
    assert found == [], "use Database.connect/transaction/read instead:\n" + "\n".join(found)


def test_the_lint_finds_a_raw_connection(tmp_path: Path) -> None:
    """The check above cannot pass by finding nothing: it sees the pattern it forbids."""
    sample = SRC / "sample_raw.py"
    try:
        sample.write_text("async def f(db):\n    async with db.engine.connect() as c:\n        pass\n")
        assert [use.split(": ", 1)[1] for use in _raw_uses(sample)] == [".engine.connect"]
    finally:
        sample.unlink()


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_an_unreachable_postgresql_is_unavailable_everywhere(closed_port: int) -> None:
    database = Database(f"postgresql+asyncpg://postgres@127.0.0.1:{closed_port}/test")
    try:
        with pytest.raises(StorageUnavailable, match="database unavailable: .*Connect"):
            async with database.connect() as conn:
                await conn.execute(text("SELECT 1"))
        with pytest.raises(StorageUnavailable):
            async with database.transaction() as conn:
                await conn.execute(text("SELECT 1"))
        with pytest.raises(StorageUnavailable):
            await database.read(text("SELECT 1"), {})
        assert await database.ping() is False
    finally:
        await database.dispose()


async def test_an_unreadable_sqlite_file_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "a-directory.db").mkdir()
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'a-directory.db'}")
    try:
        with pytest.raises(StorageUnavailable):
            async with database.connect() as conn:
                await conn.execute(text("SELECT 1"))
    finally:
        await database.dispose()


async def test_a_broken_statement_is_a_storage_error_not_an_outage(database: Database) -> None:
    with pytest.raises(StorageError) as caught:
        async with database.connect() as conn:
            await conn.execute(text("SELECT no_such_column FROM heuristics"))
    assert not isinstance(caught.value, StorageUnavailable)
    assert "\n" not in str(caught.value)


async def test_a_violated_constraint_is_a_conflict(database: Database) -> None:
    row = {"tenant": "t", "id": "h1", "domain": "d", "condition_text": "c", "action_text": "a", "embedding_model": "m"}
    async with database.transaction() as conn:
        await conn.execute(heuristics.insert(), _complete(row))
    with pytest.raises(ConflictError):
        async with database.transaction() as conn:
            await conn.execute(heuristics.insert(), _complete(row))


def _complete(row: Mapping[str, object]) -> dict[str, object]:
    """Every non-null column of a heuristic, for a raw insert."""
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    defaults: dict[str, object] = {
        "embedding": None, "alpha": 1.0, "beta": 1.0, "prior_alpha": 1.0, "prior_beta": 1.0, "confidence": 0.5,
        "origin": "pack", "locked": False, "floor": 0.0, "ceiling": 1.0, "feedback_weight": 1.0, "fire_count": 0,
        "success_count": 0, "failure_count": 0, "created_at": now, "updated_at": now, "attributes": {},
    }  # fmt: skip
    return defaults | dict(row)


async def test_a_deadlock_victim_is_contention_not_an_outage(database: Database) -> None:
    """Two transactions each hold a lock the other waits for: PostgreSQL rolls one back (40P01).
    That is a call to retry at once, not a bug (500) and not an outage (no Fault, no readiness)."""
    if database.dialect != "postgresql":
        pytest.skip("SQLite's writer holds the whole file: two writers cannot deadlock")
    holding = asyncio.Barrier(2)

    async def lock_both(first: int, second: int) -> None:
        async with database.transaction() as conn:
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": first})
            await holding.wait()
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": second})

    results = await asyncio.gather(lock_both(1, 2), lock_both(2, 1), return_exceptions=True)
    errors = [r for r in results if isinstance(r, BaseException)]
    assert len(errors) == 1 and isinstance(errors[0], StorageContention), results
    assert not isinstance(errors[0], StorageUnavailable)
    assert "deadlock" in str(errors[0])
