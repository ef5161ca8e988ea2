"""The admission decision point over HTTP (seed 003): admit runs, search them, read the decisions."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from phronesis.admission.feedback import AdmissionFeedback, AdmissionFeedbackIn
from phronesis.admission.models import (
    ID_PATTERN,
    SCOPE_PATTERN,
    AdmissionDecision,
    AdmissionResult,
    Run,
    RunIn,
    UndoResult,
)
from phronesis.api.bodies import BatchResult, MemoryDecisionPage, RunBatch, RunHits, RunPage
from phronesis.api.deps import EngineDep, Limit, Offset, TenantDep
from phronesis.clock import Instant

router = APIRouter(tags=["admission"])

RunIdPath = Annotated[str, Path(min_length=1, max_length=64, pattern=ID_PATTERN)]
DecisionIdPath = Annotated[str, Path(min_length=1, max_length=64, pattern=ID_PATTERN)]
AgentQuery = Annotated[str, Query(min_length=1, max_length=64, pattern=ID_PATTERN)]
UserQuery = Annotated[str, Query(max_length=64, pattern=SCOPE_PATTERN)]
OptionalId = Annotated[str | None, Query(min_length=1, max_length=64, pattern=ID_PATTERN)]


@router.post("/v1/runs", summary="Admit a finished agent run: ADD, NOT, REPLACE or MERGE, and why")
async def admit(body: RunIn, engine: EngineDep, tenant: TenantDep) -> AdmissionResult:
    await engine.quotas.reserve(tenant, "runs", 1)
    return await engine.admission.admit(tenant, body)


@router.post("/v1/runs/batch", summary="Admit many runs in one transaction, deduplicating within the batch too")
async def admit_batch(body: RunBatch, engine: EngineDep, tenant: TenantDep) -> BatchResult:
    await engine.quotas.reserve(tenant, "runs", len(body.runs))
    results = await engine.admission.admit_many(tenant, body.runs)
    counts = {decision: 0 for decision in ("ADD", "NOT", "REPLACE", "MERGE")}
    for result in results:
        counts[result.decision] += 1
    return BatchResult(batch_id=results[0].batch_id if results else None, results=results, counts=counts)


@router.get(
    "/v1/runs/search",
    summary="Active runs most similar to a query, best first (collapse: one per merge group, its canonical run)",
)
async def search(
    engine: EngineDep,
    tenant: TenantDep,
    q: Annotated[str, Query(min_length=1, max_length=4000)],
    agent_id: AgentQuery = "default",
    user_id: UserQuery = "",
    k: Annotated[int, Query(ge=1, le=100)] = 5,
    min_similarity: Annotated[
        float | None, Query(ge=-1.0, le=1.0, description="No hit below it; default admission.search_min_similarity.")
    ] = None,
    collapse: bool = False,
) -> RunHits:
    hits = await engine.admission.search(
        tenant, q, agent_id=agent_id, user_id=user_id, k=k, min_similarity=min_similarity, collapse=collapse
    )
    return RunHits(hits=hits)


@router.get("/v1/runs", summary="Stored runs, oldest first")
async def list_runs(
    engine: EngineDep,
    tenant: TenantDep,
    agent_id: OptionalId = None,
    user_id: Annotated[str | None, Query(max_length=64, pattern=SCOPE_PATTERN)] = None,
    status: Annotated[str | None, Query(pattern="^(active|superseded)$")] = None,
    task_id: OptionalId = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> RunPage:
    return await engine.admission.list_runs(
        tenant, agent_id=agent_id, user_id=user_id, status=status, task_id=task_id, limit=limit, offset=offset
    )


@router.get("/v1/runs/{run_id}", summary="One run, superseded or not")
async def get_run(run_id: RunIdPath, engine: EngineDep, tenant: TenantDep) -> Run:
    return await engine.admission.run(tenant, run_id)


@router.delete(
    "/v1/runs/{run_id}",
    status_code=204,
    response_class=Response,
    summary="Delete a run: the runs it superseded are active again, its merge group chooses its canonical run again",
)
async def delete_run(run_id: RunIdPath, engine: EngineDep, tenant: TenantDep) -> Response:
    await engine.admission.delete_run(tenant, run_id)
    return Response(status_code=204)


@router.post(
    "/v1/memory-decisions/{decision_id}/undo",
    summary="Take an admission decision back: memory exactly as it was before it; the undo is recorded",
)
async def undo_decision(decision_id: DecisionIdPath, engine: EngineDep, tenant: TenantDep) -> UndoResult:
    return await engine.admission.undo(tenant, decision_id)


@router.post(
    "/v1/memory-decisions/{decision_id}/feedback",
    summary="Was an admission decision right, and what should it have been (the last rating wins)",
    responses={404: {"description": "No memory decision with this id"}},
)
async def decision_feedback(
    decision_id: DecisionIdPath, body: AdmissionFeedbackIn, engine: EngineDep, tenant: TenantDep
) -> AdmissionFeedback:
    return await engine.admission.rate(tenant, decision_id, body)


@router.get("/v1/memory-decisions", summary="Memory decisions (one per admitted run, stored or not), newest first")
async def memory_decisions(
    engine: EngineDep,
    tenant: TenantDep,
    run_id: OptionalId = None,
    target_run_id: OptionalId = None,
    decision: AdmissionDecision | None = None,
    agent_id: OptionalId = None,
    user_id: Annotated[str | None, Query(max_length=64, pattern=SCOPE_PATTERN)] = None,
    batch_id: OptionalId = None,
    since: Instant | None = None,
    until: Instant | None = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> MemoryDecisionPage:
    return await engine.admission.decisions(
        tenant,
        decision=decision,
        run_id=run_id,
        target_run_id=target_run_id,
        agent_id=agent_id,
        user_id=user_id,
        batch_id=batch_id,
        since=since,
        until=until,
        limit=limit,
        offset=offset,
    )
