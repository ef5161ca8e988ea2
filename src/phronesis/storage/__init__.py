"""Relational storage (SQLAlchemy async + Alembic) and vector indexes."""

from phronesis.storage.database import Database
from phronesis.storage.migrate import upgrade

__all__ = ["Database", "upgrade"]
