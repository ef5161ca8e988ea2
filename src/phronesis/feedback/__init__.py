"""Explicit feedback on a decision: one request model and one idempotent store, shared by decision points."""

from __future__ import annotations

from typing import TYPE_CHECKING

from phronesis.lazy import exports

if TYPE_CHECKING:
    from phronesis.feedback.models import Feedback, FeedbackReceipt, FeedbackScale
    from phronesis.feedback.repository import FeedbackRepository
    from phronesis.feedback.scores import ScoreMapping

__all__ = ["Feedback", "FeedbackReceipt", "FeedbackRepository", "FeedbackScale", "ScoreMapping"]

__getattr__ = exports(
    __name__,
    {
        "Feedback": "phronesis.feedback.models",
        "FeedbackReceipt": "phronesis.feedback.models",
        "FeedbackRepository": "phronesis.feedback.repository",
        "FeedbackScale": "phronesis.feedback.models",
        "ScoreMapping": "phronesis.feedback.scores",
    },
)
