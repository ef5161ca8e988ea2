"""``INSERT … ON CONFLICT DO NOTHING`` on both dialects (SQLAlchemy builds it per dialect)."""

from __future__ import annotations

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert

__all__ = ["increment", "insert_or_ignore", "upsert"]


def insert_or_ignore(dialect: str, table: Table) -> Insert:
    """An insert that skips rows whose primary key is already there (a shared row, e.g. a task)."""
    if dialect == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    return sqlite.insert(table).on_conflict_do_nothing()


def upsert(dialect: str, table: Table, keys: list[str], columns: list[str]) -> Insert:
    """An insert that, on a clash of ``keys``, overwrites ``columns`` with the new values."""
    if dialect == "postgresql":
        pg = postgresql.insert(table)
        return pg.on_conflict_do_update(index_elements=keys, set_={name: pg.excluded[name] for name in columns})
    lite = sqlite.insert(table)
    return lite.on_conflict_do_update(index_elements=keys, set_={name: lite.excluded[name] for name in columns})


def increment(dialect: str, table: Table, keys: list[str], column: str) -> Insert:
    """An insert that, on a clash of ``keys``, adds the new ``column`` value to the stored one
    (a counter many processes bump: atomic in the database, no read-modify-write)."""
    if dialect == "postgresql":
        pg = postgresql.insert(table)
        return pg.on_conflict_do_update(index_elements=keys, set_={column: table.c[column] + pg.excluded[column]})
    lite = sqlite.insert(table)
    return lite.on_conflict_do_update(index_elements=keys, set_={column: table.c[column] + lite.excluded[column]})
