"""Migrations match the table definitions; bad URLs and constraint breaks are clean errors."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text

from phronesis.exceptions import ConfigurationError, ConflictError
from phronesis.storage.database import Database
from phronesis.storage.migrate import current_revision, head_revision, upgrade
from phronesis.storage.pgvector import COLUMN as PGVECTOR_COLUMN
from phronesis.storage.tables import metadata


async def test_migrated_schema_equals_the_table_definitions(database: Database) -> None:
    def shared(obj: object, name: str | None, type_: str, reflected: bool, compare_to: object) -> bool:
        """pgvector's column and index exist only where PostgreSQL has pgvector (storage.pgvector)."""
        return not (name or "").endswith(PGVECTOR_COLUMN)

    def diff(connection: object) -> list[object]:
        context = MigrationContext.configure(connection, opts={"include_object": shared})  # type: ignore[arg-type]
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Did not recognize type 'vector'")  # reflected, then left out
            return list(compare_metadata(context, metadata))

    async with database.engine.connect() as conn:
        differences = await conn.run_sync(diff)
    assert differences == []
    assert await current_revision(database) == head_revision()


async def test_upgrade_is_idempotent(database: Database) -> None:
    await upgrade(database)
    assert await current_revision(database) == head_revision()


async def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'nested' / 'x.db'}")
    async with database.engine.connect() as conn:
        assert (await conn.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await conn.execute(text("PRAGMA foreign_keys"))).scalar() == 1
    await database.dispose()


async def test_a_failed_transaction_writes_nothing(database: Database) -> None:
    with pytest.raises(ConflictError):
        async with database.transaction() as conn:
            await conn.execute(
                text(
                    "INSERT INTO decision_records (id, tenant, kind, path, inputs, attributes, created_at) "
                    "VALUES ('a', 't', 'executive', 'heuristic', '{}', '{}', CURRENT_TIMESTAMP)"
                )
            )
            await conn.execute(
                text(
                    "INSERT INTO decision_records (id, tenant, kind, path, inputs, attributes, created_at) "
                    "VALUES ('a', 't', 'executive', 'heuristic', '{}', '{}', CURRENT_TIMESTAMP)"
                )
            )
    async with database.engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM decision_records"))).scalar() == 0


@pytest.mark.parametrize("url", ["nonsense", "mysql+aiomysql://x/y", "sqlite:///x.db", "postgresql://x/y"])
def test_unsupported_urls_are_configuration_errors(url: str) -> None:
    with pytest.raises(ConfigurationError, match="PHRONESIS_DATABASE__URL"):
        Database(url)


@pytest.mark.pgvector
async def test_the_pgvector_search_breadth_is_a_setting(pgvector_url: str) -> None:
    database = Database(pgvector_url, hnsw_ef_search=77)
    try:
        await upgrade(database)
        async with database.connect() as conn:
            assert (await conn.execute(text("SHOW hnsw.ef_search"))).scalar() == "77"
    finally:
        await database.dispose()


async def _graph(database: Database, table: str) -> list[str]:
    async with database.connect() as conn:
        found = await conn.execute(
            text("SELECT reloptions FROM pg_class WHERE relname = :index"), {"index": f"ix_{table}_{PGVECTOR_COLUMN}"}
        )
        return list(found.scalar_one())


@pytest.mark.pgvector
async def test_an_index_built_with_other_graph_parameters_is_rebuilt(
    pgvector_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The default ef_search (50) was measured on the m=24 graph: an m=32 index built by an earlier
    version would find fewer matches with it, so ``db upgrade`` rebuilds it (migration 0013)."""
    database = Database(pgvector_url)
    try:
        await upgrade(database, "0012")
        async with database.transaction() as conn:
            await conn.execute(text(f"DROP INDEX ix_heuristics_{PGVECTOR_COLUMN}"))
            await conn.execute(
                text(
                    f"CREATE INDEX ix_heuristics_{PGVECTOR_COLUMN} ON heuristics USING hnsw "
                    f"({PGVECTOR_COLUMN} vector_cosine_ops) WITH (m = 32, ef_construction = 128)"
                )
            )
        caplog.set_level("WARNING", logger="phronesis.storage")
        await upgrade(database)
        assert await _graph(database, "heuristics") == ["m=24", "ef_construction=128"]
        assert await _graph(database, "admission_runs") == ["m=24", "ef_construction=128"]  # built so by 0008
        rebuilt = [r.getMessage() for r in caplog.records if "rebuilding" in r.getMessage()]
        assert len(rebuilt) == 1 and "heuristics" in rebuilt[0] and "was m=32" in rebuilt[0]
    finally:
        await database.dispose()
