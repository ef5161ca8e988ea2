"""FastAPI dependencies shared by every router."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from phronesis.api.auth import resolve_tenant
from phronesis.engine import Engine

__all__ = ["EngineDep", "TenantDep"]


async def _engine(request: Request) -> Engine:
    # async: FastAPI runs a plain ``def`` dependency in a worker thread, a hop per request
    engine: Engine = request.app.state.engine
    return engine


EngineDep = Annotated[Engine, Depends(_engine)]
TenantDep = Annotated[str, Depends(resolve_tenant)]
