"""FastAPI dependencies shared by every router."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Request

from phronesis.api.auth import resolve_tenant
from phronesis.engine import Engine

__all__ = ["EngineDep", "TenantDep"]


async def _engine(request: Request) -> Engine:
    # async: FastAPI runs a plain ``def`` dependency in a worker thread, a hop per request
    engine: Engine = request.app.state.engine
    return engine


EngineDep = Annotated[Engine, Depends(_engine)]
TenantDep = Annotated[str, Depends(resolve_tenant)]
Limit = Annotated[int, Query(ge=1, le=1000, description="The most items to return (1–1000).")]
"""Every listing's page size (``phronesis.pages.Page``)."""
Offset = Annotated[int, Query(ge=0, le=10_000_000, description="How many items of the listing to skip.")]
