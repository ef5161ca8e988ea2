"""The learning decision point over HTTP (seed 001): fires, observed events, confidence history."""

from __future__ import annotations

from fastapi import APIRouter

from phronesis.api.bodies import HistoryPage
from phronesis.api.deps import EngineDep, Limit, Offset, TenantDep
from phronesis.api.routers.heuristics import HeuristicIdPath
from phronesis.learning.models import ChannelReport, FireRequest, Observation, ObservedEvent
from phronesis.learning.types import FireRecord

router = APIRouter(tags=["learning"])


@router.post(
    "/v1/heuristics/{heuristic_id}/fires",
    status_code=201,
    summary="A heuristic fired for an event: count it and watch for undo, ignore or timeout",
)
async def record_fire(
    heuristic_id: HeuristicIdPath, body: FireRequest, engine: EngineDep, tenant: TenantDep
) -> FireRecord:
    return await engine.record_fire(heuristic_id, tenant=tenant, **body.model_dump())


@router.post(
    "/v1/events/observe",
    summary="A new event from a source: an undo of its recent fires, or a sign they were ignored",
)
async def observe(body: ObservedEvent, engine: EngineDep, tenant: TenantDep) -> Observation:
    return await engine.learning.observe(tenant, body)


@router.get(
    "/v1/heuristics/{heuristic_id}/history",
    summary="Confidence over time, newest first, each step with the signal that moved it",
)
async def history(
    heuristic_id: HeuristicIdPath,
    engine: EngineDep,
    tenant: TenantDep,
    limit: Limit = 1000,
    offset: Offset = 0,
) -> HistoryPage:
    return await engine.learning.history(tenant, heuristic_id, limit=limit, offset=offset)


@router.get(
    "/v1/learning/channel",
    summary="What each implicit outcome (timeout, undo, ignore, thanks) says about a fire, learned from rated fires",
)
async def channel(engine: EngineDep, tenant: TenantDep) -> ChannelReport:
    return await engine.learning.channel(tenant)
