"""Read access to decision records."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from phronesis.api.bodies import DecisionPage
from phronesis.api.deps import EngineDep, Limit, Offset, TenantDep
from phronesis.audit.models import DecisionKind, DecisionRecord
from phronesis.clock import Instant
from phronesis.explanations import explained

router = APIRouter(prefix="/v1/decisions", tags=["decisions"])


@router.get("", summary="Decision records, newest first")
async def list_decisions(
    engine: EngineDep,
    tenant: TenantDep,
    kind: DecisionKind | None = None,
    strategy: Annotated[str | None, Query(max_length=64)] = None,
    path: Annotated[str | None, Query(max_length=32)] = None,
    subject_id: Annotated[str | None, Query(max_length=256)] = None,
    since: Instant | None = None,
    until: Instant | None = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> DecisionPage:
    page = await engine.decisions.page(
        tenant,
        kind=kind,
        strategy=strategy,
        path=path,
        subject_id=subject_id,
        since=since,
        until=until,
        limit=limit,
        offset=offset,
    )
    return page.model_copy(update={"items": [explained(record) for record in page.items]})


@router.get("/{response_id}", summary="One decision record by its response id")
async def get_decision(
    response_id: Annotated[str, Path(min_length=1, max_length=64)], engine: EngineDep, tenant: TenantDep
) -> DecisionRecord:
    return explained(await engine.decisions.get(tenant, response_id))
