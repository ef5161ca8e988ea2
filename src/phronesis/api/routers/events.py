"""The executive decision point over HTTP (seed 000 ``ProcessEvent``) and its A/B report."""

from __future__ import annotations

from fastapi import APIRouter

from phronesis.api.bodies import ExecutiveReport
from phronesis.api.deps import EngineDep, TenantDep
from phronesis.clock import Instant
from phronesis.executive.events import EventDecision, EventRequest
from phronesis.executive.report import build_report

router = APIRouter(tags=["executive"])


@router.post("/v1/events/decide", summary="Decide how to respond to an event: fire a heuristic or ask the LLM")
async def decide_event(request: EventRequest, engine: EngineDep, tenant: TenantDep) -> EventDecision:
    return await engine.executive.decide_event(tenant, request)


@router.get("/v1/executive/report", summary="Per strategy: decisions by path, LLM calls, predicted and rated success")
async def executive_report(engine: EngineDep, tenant: TenantDep, since: Instant | None = None) -> ExecutiveReport:
    return ExecutiveReport(
        strategies=build_report(await engine.decisions.summarize(tenant, kind="executive", since=since))
    )
