"""Heuristic memory's boundary types: what callers send, what they get back."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from phronesis.json_values import JsonObject
from phronesis.schema import Schema

__all__ = [
    "ConfidenceUpdate",
    "Heuristic",
    "HeuristicCreate",
    "HeuristicMatch",
    "HeuristicUpdate",
    "Origin",
]

Origin = Literal["dev", "pack", "learned", "llm"]
"""Who made it: a developer, a shipped pack, learning from feedback, or the LLM path."""

HeuristicId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")]
Domain = Annotated[str, StringConstraints(max_length=128, pattern=r"^[A-Za-z0-9._:/-]*$")]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4000)]
Unit = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
FeedbackWeight = Annotated[float, Field(ge=0.25, le=2.0, allow_inf_nan=False)]


class _Bounds(Schema):
    @model_validator(mode="after")
    def _floor_below_ceiling(self) -> Any:
        floor, ceiling = getattr(self, "floor", None), getattr(self, "ceiling", None)
        if floor is not None and ceiling is not None and floor > ceiling:
            raise ValueError("floor must not exceed ceiling")
        return self


class HeuristicCreate(_Bounds):
    model_config = ConfigDict(extra="forbid")

    id: HeuristicId | None = None
    """Optional caller-chosen id (imports keep theirs); a UUID otherwise."""
    domain: Domain = ""
    """The event source / domain; matching can filter on it hard (seed 000, F-01)."""
    name: Annotated[str, StringConstraints(max_length=200)] | None = None
    condition_text: Text
    action_text: Text
    confidence: Unit | None = None
    """Initial confidence; the prior is derived from it. Default: settings.heuristics.default_confidence."""
    origin: Origin = "dev"
    origin_id: Annotated[str, StringConstraints(max_length=128)] | None = None
    locked: bool = False
    floor: Unit = 0.0
    ceiling: Unit = 1.0
    feedback_weight: FeedbackWeight = 1.0
    attributes: JsonObject = Field(default_factory=dict)


class HeuristicUpdate(_Bounds):
    """A partial update; fields left out stay as they are. ``confidence`` re-seeds the prior."""

    model_config = ConfigDict(extra="forbid")

    domain: Domain | None = None
    name: Annotated[str, StringConstraints(max_length=200)] | None = None
    condition_text: Text | None = None
    action_text: Text | None = None
    confidence: Unit | None = None
    origin: Origin | None = None
    locked: bool | None = None
    floor: Unit | None = None
    ceiling: Unit | None = None
    feedback_weight: FeedbackWeight | None = None
    attributes: dict[str, Any] | None = None


class Heuristic(Schema):
    model_config = ConfigDict(frozen=True)

    id: str
    tenant: str
    domain: str
    name: str | None
    condition_text: str
    action_text: str
    confidence: float
    alpha: float
    beta: float
    origin: Origin
    origin_id: str | None
    locked: bool
    floor: float
    ceiling: float
    feedback_weight: float
    fire_count: int
    success_count: int
    failure_count: int
    last_fired_at: datetime | None
    created_at: datetime
    updated_at: datetime
    embedding_model: str | None
    attributes: dict[str, Any]
    prior_alpha: float = 1.0
    prior_beta: float = 1.0
    evidence_at: datetime | None = None
    """When evidence last arrived (discounted strategies fade evidence from here)."""
    signal_count: int = 0
    """Signals that moved this heuristic (F-03 decay counts them)."""
    ignore_streak: int = 0


class HeuristicMatch(Schema):
    model_config = ConfigDict(frozen=True)

    heuristic: Heuristic
    similarity: float
    """Cosine similarity of the query to the heuristic's condition."""
    score: float
    """similarity × confidence (GLADyS ``HeuristicMatch.score``), for display; ranking is similarity-dominant."""


class ConfidenceUpdate(Schema):
    model_config = ConfigDict(frozen=True)

    heuristic_id: str
    applied: bool
    """False when the heuristic is locked: nothing changed."""
    old_confidence: float
    new_confidence: float
    delta: float
    alpha: float
    beta: float
    source: str
    magnitude: float
    weight: float = 0.0
    """The evidence actually added: magnitude × feedback_weight, after decay."""
    effect: str = "updated"
    """``updated``, ``locked`` (nothing changes), or ``duplicate`` (this signal's key was already applied)."""
