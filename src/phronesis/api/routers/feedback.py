"""Explicit feedback on a decision, by its response id (seed 000 ``ProvideFeedback``; seed 001 F-23 scores)."""

from __future__ import annotations

from fastapi import APIRouter

from phronesis.api.deps import EngineDep, TenantDep
from phronesis.feedback.models import Feedback, FeedbackReceipt

router = APIRouter(tags=["feedback"])


@router.post(
    "/v1/feedback",
    summary="Rate a decision: positive/negative, a 3-point user score or a 5-point developer score",
    responses={404: {"description": "No decision with this response id"}, 409: {"description": "Already rated"}},
)
async def give_feedback(feedback: Feedback, engine: EngineDep, tenant: TenantDep) -> FeedbackReceipt:
    return await engine.executive_feedback.handle(tenant, feedback)
