"""Explicit feedback on a decision: one request model and one idempotent store, shared by decision points."""

from phronesis.feedback.models import Feedback, FeedbackReceipt, FeedbackScale
from phronesis.feedback.repository import FeedbackRepository
from phronesis.feedback.scores import ScoreMapping

__all__ = ["Feedback", "FeedbackReceipt", "FeedbackRepository", "FeedbackScale", "ScoreMapping"]
