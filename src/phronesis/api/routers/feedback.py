"""Explicit feedback on a decision or a fire, by its response id (seed 000 ``ProvideFeedback``; seed 001 F-23)."""

from __future__ import annotations

from fastapi import APIRouter

from phronesis.api.deps import EngineDep, TenantDep
from phronesis.feedback.models import Feedback, FeedbackReceipt

router = APIRouter(tags=["feedback"])


@router.post(
    "/v1/feedback",
    summary="Rate a decision: positive/negative, a 3-point user score or a 5-point developer score",
    responses={
        404: {"description": "No decision or fire with this response id"},
        409: {"description": "The same rating of this decision twice (a different rating replaces the standing one)"},
    },
)
async def give_feedback(feedback: Feedback, engine: EngineDep, tenant: TenantDep) -> FeedbackReceipt:
    return await engine.give_feedback(tenant, feedback)
