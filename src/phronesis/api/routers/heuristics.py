"""Heuristics CRUD, matching, confidence updates, and JSONL import/export."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import StreamingResponse

from phronesis.api.bodies import ConfidenceRequest, HeuristicPage, ImportResult, MatchRequest, MatchResponse
from phronesis.api.deps import EngineDep, Limit, Offset, TenantDep
from phronesis.heuristics.examples import Example, ExampleIn, Scope
from phronesis.heuristics.jsonl import export_line, parse_jsonl
from phronesis.heuristics.models import (
    ConfidenceUpdate,
    Heuristic,
    HeuristicCreate,
    HeuristicCreated,
    HeuristicDetail,
    HeuristicUpdate,
    Origin,
)

router = APIRouter(prefix="/v1/heuristics", tags=["heuristics"])

HeuristicIdPath = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")]
EXPORT_PAGE = 1000


@router.post("", status_code=201, summary="Create a heuristic")
async def create_heuristic(body: HeuristicCreate, engine: EngineDep, tenant: TenantDep) -> HeuristicCreated:
    """A heuristic whose condition the tenant already has in that domain is created all the same,
    with ``warning`` and ``duplicate_of`` naming the earlier one."""
    await engine.quotas.reserve(tenant, "heuristics", 1)
    return await engine.heuristics.create(tenant, body)


@router.get("", summary="List heuristics")
async def list_heuristics(
    engine: EngineDep,
    tenant: TenantDep,
    domain: Annotated[str | None, Query(max_length=128)] = None,
    origin: Origin | None = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> HeuristicPage:
    return await engine.heuristics.page(tenant, domain=domain, origin=origin, limit=limit, offset=offset)


@router.post("/match", summary="Top-k heuristics whose condition matches a text")
async def match_heuristics(body: MatchRequest, engine: EngineDep, tenant: TenantDep) -> MatchResponse:
    matches = await engine.heuristics.match(
        tenant,
        body.text,
        source=body.source,
        k=body.k,
        min_similarity=body.min_similarity,
        min_confidence=body.min_confidence,
        include_general=body.include_general,
    )
    return MatchResponse(matches=matches)


_IMPORT_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
    }
}


@router.post("/import", status_code=201, summary="Bulk import (JSON Lines, all or nothing)", openapi_extra=_IMPORT_BODY)
async def import_heuristics(
    request: Request, engine: EngineDep, tenant: TenantDep, upsert: bool = False
) -> ImportResult:
    """``upsert=true``: a heuristic whose id exists is replaced (its history kept), not a 409."""
    raw = await request.body()  # BodyLimitMiddleware bounds it, chunked or not
    items = parse_jsonl(raw)
    if upsert:  # a heuristic replaced adds no row
        await engine.quotas.reserve_new(tenant, "heuristics", *(item.id for item in items))
    else:
        await engine.quotas.reserve(tenant, "heuristics", len(items))
    created = await engine.heuristics.add_many(tenant, items, upsert=upsert)
    return ImportResult(imported=len(created), ids=[h.id for h in created])


@router.get("/export", summary="Export as JSON Lines (re-importable)", response_class=StreamingResponse)
async def export_heuristics(engine: EngineDep, tenant: TenantDep) -> StreamingResponse:
    async def lines() -> AsyncIterator[str]:
        offset = 0
        while True:
            page = await engine.heuristics.page(tenant, limit=EXPORT_PAGE, offset=offset)
            scopes = await engine.heuristics.scopes(tenant, [h.id for h in page.items])
            for heuristic in page.items:
                yield export_line(heuristic, scopes.get(heuristic.id, ()))
            if len(page.items) < EXPORT_PAGE:
                return
            offset += EXPORT_PAGE

    return StreamingResponse(lines(), media_type="application/x-ndjson")


@router.get("/{heuristic_id}", summary="One heuristic, with its scope")
async def get_heuristic(heuristic_id: HeuristicIdPath, engine: EngineDep, tenant: TenantDep) -> HeuristicDetail:
    heuristic = await engine.heuristics.get(tenant, heuristic_id)
    scope = Scope.of(await engine.heuristics.scope(tenant, heuristic_id))
    return HeuristicDetail.model_validate(heuristic.model_dump() | {"scope": scope})


@router.post("/{heuristic_id}/examples", status_code=201, summary="Add a situation to a heuristic's scope")
async def add_example(heuristic_id: HeuristicIdPath, body: ExampleIn, engine: EngineDep, tenant: TenantDep) -> Example:
    """An example (an event like it matches as one like the condition would) or a counter-example (an event at least
    as near it as to the heuristic's best example does not match)."""
    (added,) = await engine.heuristics.add_examples(tenant, heuristic_id, [body.text], body.kind)
    return added


@router.delete(
    "/{heuristic_id}/examples/{example_id}",
    status_code=204,
    summary="Remove a situation from a heuristic's scope",
    response_class=Response,
)
async def remove_example(
    heuristic_id: HeuristicIdPath,
    example_id: Annotated[str, Path(min_length=1, max_length=64, description="The example's id.")],
    engine: EngineDep,
    tenant: TenantDep,
) -> Response:
    await engine.heuristics.remove_example(tenant, heuristic_id, example_id)
    return Response(status_code=204)


@router.patch("/{heuristic_id}", summary="Change a heuristic (confidence re-seeds its prior)")
async def update_heuristic(
    heuristic_id: HeuristicIdPath, body: HeuristicUpdate, engine: EngineDep, tenant: TenantDep
) -> Heuristic:
    return await engine.heuristics.update(tenant, heuristic_id, body)


@router.delete("/{heuristic_id}", status_code=204, summary="Delete a heuristic", response_class=Response)
async def delete_heuristic(heuristic_id: HeuristicIdPath, engine: EngineDep, tenant: TenantDep) -> Response:
    await engine.heuristics.delete(tenant, heuristic_id)
    return Response(status_code=204)


@router.post("/{heuristic_id}/confidence", summary="Add evidence for or against (atomic)")
async def update_confidence(
    heuristic_id: HeuristicIdPath, body: ConfidenceRequest, engine: EngineDep, tenant: TenantDep
) -> ConfidenceUpdate:
    return await engine.heuristics.update_confidence(
        tenant, heuristic_id, positive=body.positive, magnitude=body.magnitude, source=body.source
    )
