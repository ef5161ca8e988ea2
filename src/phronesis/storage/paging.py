"""One page of a query's rows and the query's total, for every repository's listing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.pages import Page

__all__ = ["fetch_page"]

T = TypeVar("T")


async def fetch_page(
    conn: AsyncConnection, query: Select[Any], convert: Callable[[Any], T], *, limit: int, offset: int
) -> Page[T]:
    """Rows ``offset`` to ``offset + limit`` of the ordered ``query``, and how many rows it has
    in all (counted on the same connection, without its order)."""
    total = (await conn.execute(select(func.count()).select_from(query.order_by(None).subquery()))).scalar_one()
    rows = await conn.execute(query.limit(limit).offset(offset))
    return Page[T].model_construct(items=[convert(r) for r in rows], limit=limit, offset=offset, total=int(total))
