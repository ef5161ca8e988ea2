"""A searched table's rows as the in-process index reads them (``storage.followed_index``): all of
them in key order, a batch at a time, or some by key. One way for every table the index follows
(heuristics, their examples, document passages), where each had its own copy."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from sqlalchemy import Row, Select, Table

from phronesis.storage.database import Database
from phronesis.storage.followed_index import IndexedRow

__all__ = ["rows_by_key", "rows_in_key_order"]

KEYS_PER_QUERY = 500
"""Keys in one ``IN (…)``: well under SQLite's bound-parameter limit."""

ToRow = Callable[[Row[*tuple[Any, ...]]], IndexedRow]


async def rows_in_key_order(
    database: Database, query: Select[Any], table: Table, to_row: ToRow, *, batch_size: int
) -> AsyncIterator[list[IndexedRow]]:
    """Every row of ``query`` (columns of ``table``, which has ``tenant`` and ``id``), by (tenant, id),
    ``batch_size`` at a time: keyset paging, so a batch costs the same however far in it is."""
    c = table.c
    last: tuple[str, str] = ("", "")
    while True:
        page = (
            query.where((c.tenant > last[0]) | ((c.tenant == last[0]) & (c.id > last[1])))
            .order_by(c.tenant, c.id)
            .limit(batch_size)
        )
        async with database.connect() as conn:
            rows = (await conn.execute(page)).all()
        if not rows:
            return
        yield [to_row(r) for r in rows]
        last = (rows[-1].tenant, rows[-1].id)


async def rows_by_key(
    database: Database, query: Select[Any], table: Table, to_row: ToRow, tenant: str, keys: Sequence[str]
) -> list[IndexedRow]:
    """The rows ``keys`` of a tenant as they stand now (a deleted one is absent)."""
    c = table.c
    found: list[IndexedRow] = []
    async with database.connect() as conn:
        for start in range(0, len(keys), KEYS_PER_QUERY):
            chunk = list(keys[start : start + KEYS_PER_QUERY])
            found.extend(to_row(r) for r in await conn.execute(query.where(c.tenant == tenant, c.id.in_(chunk))))
    return found
