"""What a caller sends as feedback on a decision, and what it gets back.

Three scales (seed 001 F-23): a binary positive/negative, a 3-point user score
(1 bad, 2 meh, 3 good) and a 5-point developer score. Exactly one is given.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from phronesis.schema import Schema

__all__ = ["Feedback", "FeedbackReceipt", "FeedbackScale"]

FeedbackScale = Literal["binary", "user", "dev"]


class Feedback(Schema):
    model_config = ConfigDict(extra="forbid", frozen=True)

    response_id: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    rating: Literal["positive", "negative"] | None = None
    user_score: int | None = Field(default=None, ge=1, le=3)
    dev_score: int | None = Field(default=None, ge=1, le=5)
    idempotency_key: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    """Feedback with a key that was already used is refused. Default: the response, scale and score — the
    same click twice is a duplicate; a different click on a fired heuristic replaces it (last click wins)."""
    comment: Annotated[str, StringConstraints(max_length=2000)] | None = None

    @model_validator(mode="after")
    def _exactly_one_score(self) -> Feedback:
        given = [name for name in ("rating", "user_score", "dev_score") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of rating, user_score or dev_score")
        return self

    @property
    def scale(self) -> FeedbackScale:
        if self.rating is not None:
            return "binary"
        return "user" if self.user_score is not None else "dev"

    @property
    def score(self) -> int:
        """The score on its own scale; binary is 1 (negative) or 2 (positive)."""
        if self.rating is not None:
            return 2 if self.rating == "positive" else 1
        return self.user_score if self.user_score is not None else int(self.dev_score or 0)

    @property
    def source(self) -> str:
        """Seed 001 signal source: developers rate as ``dev``, everyone else as ``user_explicit``."""
        return "dev" if self.dev_score is not None else "user_explicit"

    @property
    def key(self) -> str:
        return self.idempotency_key or f"{self.response_id}:{self.scale}:{self.score}"


class FeedbackReceipt(Schema):
    """What the feedback did."""

    model_config = ConfigDict(frozen=True)

    response_id: str
    accepted: bool
    signal: Literal["positive", "negative", "neutral"]
    magnitude: float
    effect: str
    """``updated`` (a fired heuristic moved), ``reinforced`` / ``created`` (learning from an LLM answer),
    ``recorded`` (nothing to update), ``locked`` (the heuristic is locked), ``rejected`` (pattern failed the gate)."""
    heuristic_id: str | None = None
    old_confidence: float | None = None
    new_confidence: float | None = None
    detail: str | None = None
