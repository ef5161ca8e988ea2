"""Run Alembic migrations programmatically on the engine's own connection.

The connection-sharing pattern keeps one code path for SQLite and PostgreSQL and works
inside an already-running event loop (tests, the service's start-up).
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from phronesis.storage.database import Database
from phronesis.storage.pgvector import ensure_schema

__all__ = ["current_revision", "head_revision", "upgrade"]

MIGRATIONS = Path(__file__).parent / "migrations"


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None, "no migrations shipped"
    return head


async def upgrade(database: Database, revision: str = "head") -> None:
    """Bring the schema to ``revision`` in one transaction (PostgreSQL) or step by step (SQLite)."""

    def run(connection: Connection) -> None:
        config = _config()
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
        if revision == "head":
            ensure_schema(connection)  # pgvector installed after the migration that adds its columns

    async with database.transaction() as connection:
        await connection.run_sync(run)


async def current_revision(database: Database) -> str | None:
    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async with database.connect() as connection:
        return await connection.run_sync(read)
