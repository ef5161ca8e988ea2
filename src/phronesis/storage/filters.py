"""Optional filters on list queries: a column equal to a value when one is given, a time window."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select

__all__ = ["where_given"]

S = TypeVar("S", bound=Select[Any])


def where_given(
    query: S,
    equal: Iterable[tuple[ColumnElement[Any], object | None]],
    *,
    created_at: ColumnElement[Any] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> S:
    """``column == value`` for every value that is not None; ``since <= created_at < until`` when given."""
    for column, value in equal:
        if value is not None:
            query = query.where(column == value)
    if created_at is not None and since is not None:
        query = query.where(created_at >= since)
    if created_at is not None and until is not None:
        query = query.where(created_at < until)
    return query
