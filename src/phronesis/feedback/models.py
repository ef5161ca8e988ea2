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
    """What is rated: an executive decision's response_id, or the id of a fire recorded with
    POST /v1/heuristics/{id}/fires."""
    rating: Literal["positive", "negative"] | None = None
    """A binary rating: positive or negative. Give exactly one of rating, user_score and dev_score."""
    user_score: int | None = Field(default=None, ge=1, le=3)
    """A user's score: 1 bad, 2 meh, 3 good. By default 2 is neutral: it moves nothing, and takes back an earlier rating
    of the same thing where one stands."""
    dev_score: int | None = Field(default=None, ge=1, le=5)
    """A developer's score, 1 (bad) to 5 (good). By default 1 and 2 count against, 3 to 5 for, more strongly further
    from the middle."""
    idempotency_key: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    """Feedback with a key that was already used is refused. Default: the response, scale and score — the
    same click twice is a duplicate; a different click on a fired heuristic replaces it (last click wins)."""
    comment: Annotated[str, StringConstraints(max_length=2000)] | None = None
    """Free text kept with the feedback, at most 2000 characters; nothing learns from it."""

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
    """What was rated, as sent."""
    accepted: bool
    """Always true: feedback that is refused gets an error response instead (404, 409 or 422)."""
    signal: Literal["positive", "negative", "neutral"]
    """Which way the feedback counts: positive, negative, or neutral (a score that maps to 0, such as user score 2)."""
    magnitude: float
    """How strongly it counts, from the score's magnitude (a binary rating is 0.8 by default); 0 for a neutral score."""
    effect: str
    """``updated`` (a fired heuristic moved), ``reinforced`` / ``created`` (learning from an LLM answer),
    ``recorded`` (nothing to update), ``locked`` (the heuristic is locked), ``rejected`` (pattern failed the gate)."""
    heuristic_id: str | None = None
    """The heuristic the feedback was about: the one it moved, created, reinforced or took a lesson back from. None when
    no heuristic was involved."""
    old_confidence: float | None = None
    """That heuristic's confidence before, 0 to 1; None where no confidence update was attempted."""
    new_confidence: float | None = None
    """That heuristic's confidence after, 0 to 1 (for a heuristic just created, its starting confidence); None where no
    confidence update was attempted."""
    detail: str | None = None
    """What happened, in words, where there is more to say (why a learned pattern was rejected, what a withdrawn rating
    took back); else None."""
