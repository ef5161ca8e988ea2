"""Explicit feedback on a fire recorded through the learning API (``POST /v1/heuristics/{id}/fires``).

The executive's own decisions are rated through ``executive.feedback_handler``, which
hands heuristic-path ratings to the same ``LearningModule.rate``: one explicit path, one
magnitude (ORIGINS bug 5: GLADyS's strategy said 0.8 while its live path applied 1.0).
"""

from __future__ import annotations

from phronesis.exceptions import NotFoundError
from phronesis.feedback.models import Feedback, FeedbackReceipt
from phronesis.feedback.rates import refuse_another
from phronesis.feedback.repository import FeedbackRepository
from phronesis.feedback.scores import ScoreMapping
from phronesis.learning.module import LearningModule

__all__ = ["LearningFeedback"]


class LearningFeedback:
    def __init__(self, module: LearningModule, ledger: FeedbackRepository, scores: ScoreMapping) -> None:
        self._module = module
        self._ledger = ledger
        self._scores = scores

    async def rate(self, tenant: str, decision_id: str, rating: Feedback) -> FeedbackReceipt:
        """``feedback.rates.Rates``: ``rating`` of the fire ``decision_id`` (a fire recorded through
        the learning API is its own decision: its id is the ``response_id`` a rating quotes)."""
        fire = await self._module.fire(tenant, decision_id)
        if fire is None:
            raise NotFoundError("fire", decision_id)
        refuse_another(rating.response_id, decision_id, field="response_id")
        feedback = await self._ledger.resolve(tenant, rating)
        signed = self._scores.signed_magnitude(feedback)
        signal = "neutral" if signed == 0 else ("positive" if signed > 0 else "negative")
        effect, update = "recorded", None
        async with self._module.database.transaction() as conn:
            if signed != 0 or fire.explicit_positive is not None:  # a neutral click replaces a standing one
                update = await self._module.rate(conn, tenant, fire, feedback, signed)
                effect = "recorded" if update is None else update.effect
                if signed == 0 and update is not None and update.applied:
                    effect = "withdrawn"
            await self._ledger.add(
                tenant, feedback, magnitude=signed, effect=effect, heuristic_id=fire.heuristic_id, connection=conn
            )
        return FeedbackReceipt(
            response_id=feedback.response_id,
            accepted=True,
            signal=signal,
            magnitude=abs(signed) if update is None else update.magnitude,
            effect=effect,
            heuristic_id=fire.heuristic_id,
            old_confidence=None if update is None else update.old_confidence,
            new_confidence=None if update is None else update.new_confidence,
        )
