"""The proactive decision point over HTTP (seed 004): users, signals, messages, cycles, feedback."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response, status

from phronesis.api.bodies import (
    CycleRequest,
    FeedbackPage,
    InsightPage,
    SignalBatch,
    SignalPage,
    SignalsStored,
    UserPage,
)
from phronesis.api.deps import EngineDep, Limit, Offset, TenantDep
from phronesis.clock import Instant
from phronesis.proactive.controls import PauseIn, PauseState
from phronesis.proactive.models import (
    ID_PATTERN,
    CycleResult,
    FeedbackOutcome,
    FeedbackSummary,
    MuteIn,
    OptOutIn,
    Preview,
    PreviewIn,
    TickReport,
    Timeline,
    UserIn,
    UserMessageIn,
    UserProfile,
    UserReply,
)

router = APIRouter(tags=["proactive"])

UserPath = Annotated[str, Path(min_length=1, max_length=64, pattern=ID_PATTERN)]


@router.put("/v1/users/{user_id}", summary="Create or replace a user's proactive profile")
async def put_user(
    user_id: UserPath, body: UserIn, engine: EngineDep, tenant: TenantDep, response: Response
) -> UserProfile:
    """Replaces the profile: a field left out takes its default again, so send the whole profile.
    Counters (``created_at``, ``interaction_count``, ``last_active_at``) are kept unless given;
    opt-outs, a mute and learned ignored types are always kept. 201 when the user is new."""
    await engine.quotas.reserve_new(tenant, "users", user_id)
    profile, created = await engine.proactive.put_user(tenant, user_id, body)
    response.status_code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
    return profile


@router.get("/v1/users/{user_id}", summary="A user's profile with their current trust level")
async def get_user(user_id: UserPath, engine: EngineDep, tenant: TenantDep) -> UserProfile:
    return await engine.proactive.user(tenant, user_id)


@router.get("/v1/users", summary="Users, by id")
async def list_users(engine: EngineDep, tenant: TenantDep, limit: Limit = 100, offset: Offset = 0) -> UserPage:
    return await engine.proactive.list_users(tenant, limit=limit, offset=offset)


@router.delete("/v1/users/{user_id}", status_code=204, summary="Delete a user with their signals, sends and insights")
async def delete_user(user_id: UserPath, engine: EngineDep, tenant: TenantDep) -> None:
    await engine.proactive.delete_user(tenant, user_id)


@router.post("/v1/users/{user_id}/signals", status_code=201, summary="Signals for the user's next cycle")
async def add_signals(user_id: UserPath, body: SignalBatch, engine: EngineDep, tenant: TenantDep) -> SignalsStored:
    await engine.quotas.reserve(tenant, "signals", len(body.signals))
    added = await engine.proactive.add_signals(tenant, user_id, body.signals)
    return SignalsStored(stored=added.stored, duplicates=added.duplicates, updated=added.updated)


@router.get("/v1/users/{user_id}/signals", summary="A user's signals, newest first")
async def list_signals(
    user_id: UserPath,
    engine: EngineDep,
    tenant: TenantDep,
    pending: bool | None = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> SignalPage:
    return await engine.proactive.list_signals(tenant, user_id, pending=pending, limit=limit, offset=offset)


@router.post(
    "/v1/users/{user_id}/messages",
    summary="The user wrote: label pending sends, and get up to 3 fresh deferred insights to weave into the reply",
)
async def user_message(user_id: UserPath, body: UserMessageIn, engine: EngineDep, tenant: TenantDep) -> UserReply:
    return await engine.proactive.on_message(tenant, user_id, body)


@router.post("/v1/users/{user_id}/opt-out", summary="Opt the user out of proactive messages: all, or some categories")
async def opt_out(user_id: UserPath, body: OptOutIn, engine: EngineDep, tenant: TenantDep) -> UserProfile:
    return await engine.proactive.opt_out(tenant, user_id, body)


@router.post("/v1/users/{user_id}/opt-in", summary="Undo an opt-out: of everything, or of some categories")
async def opt_in(user_id: UserPath, body: OptOutIn, engine: EngineDep, tenant: TenantDep) -> UserProfile:
    return await engine.proactive.opt_in(tenant, user_id, body)


@router.put("/v1/users/{user_id}/mute", summary="No proactive message to the user until a time (urgent ones too)")
async def mute(user_id: UserPath, body: MuteIn, engine: EngineDep, tenant: TenantDep) -> UserProfile:
    return await engine.proactive.mute(tenant, user_id, body)


@router.delete("/v1/users/{user_id}/mute", summary="Lift the user's mute")
async def unmute(user_id: UserPath, engine: EngineDep, tenant: TenantDep) -> UserProfile:
    return await engine.proactive.unmute(tenant, user_id)


@router.get("/v1/proactive/pause", summary="Whether the tenant's proactive messages are paused")
async def get_pause(engine: EngineDep, tenant: TenantDep) -> PauseState:
    return await engine.proactive.pause(tenant)


@router.put("/v1/proactive/pause", summary="Pause or resume every proactive message of the tenant (the kill switch)")
async def set_pause(body: PauseIn, engine: EngineDep, tenant: TenantDep) -> PauseState:
    return await engine.proactive.set_pause(tenant, body)


@router.get("/v1/users/{user_id}/insights", summary="Deferred insights (fresh and unused by default)")
async def list_insights(
    user_id: UserPath,
    engine: EngineDep,
    tenant: TenantDep,
    fresh: bool = True,
    limit: Limit = 100,
    offset: Offset = 0,
) -> InsightPage:
    return await engine.proactive.list_insights(tenant, user_id, fresh_only=fresh, limit=limit, offset=offset)


@router.get("/v1/users/{user_id}/feedback-summary", summary="Engagement over the last 30 days, by category")
async def feedback_summary(user_id: UserPath, engine: EngineDep, tenant: TenantDep) -> FeedbackSummary:
    return await engine.proactive.feedback_summary(tenant, user_id)


@router.post("/v1/proactive/cycles", summary="Run a cycle now: for one user, or for every due user")
async def run_cycles(body: CycleRequest, engine: EngineDep, tenant: TenantDep) -> CycleResult | TickReport:
    if body.user_id is not None:
        return await engine.proactive.run_cycle(tenant, body.user_id)
    return await engine.proactive.tick(tenant)


@router.post(
    "/v1/proactive/preview",
    summary="What a user's cycle would decide (at a given time): verdict, candidates, scores, message; nothing written",
)
async def preview(body: PreviewIn, engine: EngineDep, tenant: TenantDep) -> Preview:
    return await engine.proactive.preview(tenant, body)


@router.get(
    "/v1/users/{user_id}/timeline",
    summary="Why the user got a message or did not: signals, cycles, sends, feedback, and a cycle's verdict now",
)
async def timeline(
    user_id: UserPath,
    engine: EngineDep,
    tenant: TenantDep,
    days: Annotated[float, Query(gt=0, le=366)] = 7,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> Timeline:
    return await engine.proactive.timeline(tenant, user_id, days=days, limit=limit)


@router.get("/v1/proactive/stats", summary="The tenant's proactive counters per UTC day: cycles by outcome, LLM use")
async def stats(
    engine: EngineDep, tenant: TenantDep, days: Annotated[int, Query(ge=1, le=366)] = 7
) -> dict[str, dict[str, int]]:
    return await engine.proactive.stats(tenant, days=days)


@router.get("/v1/proactive/feedback", summary="Proactive sends and their feedback, newest first")
async def list_feedback(
    engine: EngineDep,
    tenant: TenantDep,
    user_id: Annotated[str | None, Query(min_length=1, max_length=64, pattern=ID_PATTERN)] = None,
    outcome: FeedbackOutcome | None = None,
    category: Annotated[str | None, Query(max_length=32)] = None,
    since: Instant | None = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> FeedbackPage:
    return await engine.proactive.list_feedback(
        tenant, user_id=user_id, outcome=outcome, category=category, since=since, limit=limit, offset=offset
    )
