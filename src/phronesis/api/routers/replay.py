"""What-if replay of logged decisions."""

from __future__ import annotations

from fastapi import APIRouter

from phronesis.api.deps import EngineDep, TenantDep
from phronesis.replay import ReplayIn, ReplayReport, TuneIn, TuneReport, run_replay, tune

router = APIRouter(prefix="/v1/replay", tags=["replay"])


@router.post("", summary="Replay the logged decisions under another setting: what would change, and how well")
async def replay(body: ReplayIn, engine: EngineDep, tenant: TenantDep) -> ReplayReport:
    return await run_replay(engine, tenant, body)


@router.post(
    "/tune",
    summary="Propose the threshold that avoids the most LLM calls without lowering the estimated success",
)
async def tune_threshold(body: TuneIn, engine: EngineDep, tenant: TenantDep) -> TuneReport:
    """Every candidate value replayed on the same logged decisions; changes no setting."""
    return await tune(engine, tenant, body)
