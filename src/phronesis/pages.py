"""The one shape of every listing the API returns (no bare lists, one page shape).

A page says where it stands in the whole listing, so a caller can page through it and show
"41–60 of 212" without a second request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from phronesis.schema import Schema

__all__ = ["Page", "page_of"]

T = TypeVar("T")


class Page(Schema, Generic[T]):
    items: list[T]
    """This page's items, in the listing's order."""
    limit: int
    """The most items a page holds: the request's ``limit``."""
    offset: int
    """How many items of the listing come before this page: the request's ``offset``."""
    total: int
    """How many items the whole listing has with the request's filters, across every page."""

    @classmethod
    def model_parametrized_name(cls, params: tuple[Any, ...]) -> str:
        """``HeuristicPage`` rather than ``Page[Heuristic]`` in the OpenAPI document and the client."""
        return f"{getattr(params[0], '__name__', 'Item')}Page"


def page_of(items: Sequence[T], *, limit: int, offset: int) -> Page[T]:
    """A page cut from a listing held whole (a tenant's tools, its applied settings)."""
    return Page[T].model_construct(
        items=list(items[offset : offset + limit]), limit=limit, offset=offset, total=len(items)
    )
