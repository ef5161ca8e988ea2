"""Storing vectors computed again (rows embedded by another model, or not at all), one way for
every searched table: the row, the change feed, and pgvector's column where there is one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Table, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.embeddings.types import Vectors
from phronesis.storage.change_feed import ChangeLog
from phronesis.storage.database import Database
from phronesis.storage.pgvector import PgVectorColumn

__all__ = ["store_embeddings", "store_embeddings_now"]


async def store_embeddings(
    connection: AsyncConnection,
    table: Table,
    items: Sequence[tuple[str, str, Vectors]],
    model: str,
    *,
    at: datetime,
    changes: ChangeLog | None,
    vector_column: PgVectorColumn | None,
) -> None:
    """Write each (tenant, key, vector) in the caller's transaction. ``changes``: announce them on
    the feed, so other processes index the new vectors (None where the feed needs no entry)."""
    for tenant, key, vector in items:
        await connection.execute(
            update(table)
            .where(table.c.tenant == tenant, table.c.id == key)
            .values(embedding=vector, embedding_model=model)
        )
    for tenant in dict.fromkeys(t for t, _, _ in items):
        mine = [(key, vector) for t, key, vector in items if t == tenant]
        if changes is not None:
            await changes.append(connection, tenant, (("add", key) for key, _ in mine), at)
        if vector_column is not None:
            await vector_column.write(connection, tenant, mine)


async def store_embeddings_now(
    database: Database,
    table: Table,
    items: Sequence[tuple[str, str, Vectors]],
    model: str,
    *,
    at: datetime,
    changes: ChangeLog | None,
    vector_column: PgVectorColumn | None,
) -> None:
    """``store_embeddings`` in a transaction of its own (what a followed index's source does)."""
    async with database.transaction() as connection:
        await store_embeddings(connection, table, items, model, at=at, changes=changes, vector_column=vector_column)
