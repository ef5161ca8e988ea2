"""Relational storage (SQLAlchemy async + Alembic) and vector indexes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from phronesis.lazy import exports

if TYPE_CHECKING:
    from phronesis.storage.database import Database
    from phronesis.storage.migrate import upgrade

__all__ = ["Database", "upgrade"]

__getattr__ = exports(
    __name__,
    {
        "Database": "phronesis.storage.database",
        "upgrade": "phronesis.storage.migrate",
    },
)
