"""An unknown query parameter is refused, naming it, as an unknown body field is.

Why: ``/v1/decisions?bogus=1`` answered every decision, and ``?subject=…`` (the parameter is
``subject_id``) silently filtered nothing: a typo looked like an empty result or a full one. The
parameters an endpoint takes are read from its route (its own and its dependencies').
"""

from __future__ import annotations

from fastapi import Request
from fastapi.dependencies.models import Dependant
from starlette.routing import BaseRoute

from phronesis.exceptions import InvalidInputError

__all__ = ["known_query_only"]


def _names(dependant: Dependant) -> set[str]:
    """The query parameters a dependant reads, its sub-dependencies' included."""
    names = {param.alias for param in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _names(sub)
    return names


def _taken(route: BaseRoute) -> frozenset[str]:
    """Read from the route at each request: a walk of a few dependants, cheaper than keeping it."""
    dependant: Dependant | None = getattr(route, "dependant", None)
    return frozenset() if dependant is None else frozenset(_names(dependant))


async def known_query_only(request: Request) -> None:
    """The API routers' dependency: every query parameter sent is one the endpoint takes."""
    route = request.scope.get("route")
    if route is None:
        return
    taken = _taken(route)
    for name in request.query_params:
        if name not in taken:
            takes = f"it takes {', '.join(sorted(taken))}" if taken else "it takes none"
            raise InvalidInputError(name, f"is not a query parameter of this endpoint; {takes}")
