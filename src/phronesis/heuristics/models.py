"""Heuristic memory's boundary types: what callers send, what they get back."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from phronesis.heuristics.examples import Scope
from phronesis.json_values import JsonObject
from phronesis.schema import Schema

__all__ = [
    "HeuristicCreated",
    "ConfidenceUpdate",
    "Heuristic",
    "HeuristicDetail",
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
    """The event source it applies to (e.g. ``garden``); matching can be limited to one source's
    heuristics. Empty: no domain, a heuristic for every source."""
    name: Annotated[str, StringConstraints(max_length=200)] | None = None
    """A short display name, at most 200 characters; optional."""
    condition_text: Text
    """The situation it applies to, in words (1 to 4000 characters, trimmed). Events are matched to it by the similarity
    of their embeddings."""
    action_text: Text
    """What to do or say when the condition matches (1 to 4000 characters, trimmed)."""
    confidence: Unit | None = None
    """Initial confidence, 0 to 1; the prior is derived from it. Unset: 0.5 by default (the server's
    ``PHRONESIS_HEURISTICS__DEFAULT_CONFIDENCE``)."""
    origin: Origin = "dev"
    """Who made it: dev (a developer, the default), pack (a shipped pack), learned (from feedback) or llm."""
    origin_id: Annotated[str, StringConstraints(max_length=128)] | None = None
    """Where it came from, by id (at most 128 characters); a learned heuristic has the response id of the decision that
    taught it."""
    locked: bool = Field(default=False, strict=True)
    """True: no signal moves its confidence (each is answered with effect locked); a PATCH of confidence still sets
    it."""
    floor: Unit = 0.0
    """The lowest confidence it may have, 0 to 1 (default 0); not above ceiling."""
    ceiling: Unit = 1.0
    """The highest confidence it may have, 0 to 1 (default 1)."""
    feedback_weight: FeedbackWeight = 1.0
    """Multiplies the weight of every signal about it, 0.25 to 2 (default 1): above 1 it learns faster, below 1
    slower."""
    attributes: JsonObject = Field(default_factory=dict)
    """Free-form JSON kept with it and returned as is (finite numbers only)."""
    examples: Annotated[list[Text], Field(max_length=50)] = Field(default_factory=list)
    """Other situations it applies to, in words (at most 50): an event near one of them matches as it would near the
    condition. Paraphrases, slang, the same situation seen from another side."""
    counter_examples: Annotated[list[Text], Field(max_length=50)] = Field(default_factory=list)
    """Situations near its examples that it does not apply to (at most 50): an event at least as near one of these
    as to its best example does not match."""


class HeuristicUpdate(_Bounds):
    """A partial update; fields left out stay as they are. ``confidence`` re-seeds the prior."""

    model_config = ConfigDict(extra="forbid")

    domain: Domain | None = None
    """The event source it applies to; "" for every source."""
    name: Annotated[str, StringConstraints(max_length=200)] | None = None
    """A short display name, at most 200 characters; null removes it (left out, it stays)."""
    condition_text: Text | None = None
    """The situation it applies to (1 to 4000 characters, trimmed); it is embedded again."""
    action_text: Text | None = None
    """What to do or say when the condition matches (1 to 4000 characters, trimmed)."""
    confidence: Unit | None = None
    """A new confidence, 0 to 1, as a fresh start: the evidence gathered so far is dropped and the prior is derived from
    it."""
    origin: Origin | None = None
    """Who made it: dev, pack, learned or llm."""
    locked: bool | None = Field(default=None, strict=True)
    """True: no signal moves its confidence; a PATCH of confidence still sets it."""
    floor: Unit | None = None
    """The lowest confidence it may have, 0 to 1; not above ceiling."""
    ceiling: Unit | None = None
    """The highest confidence it may have, 0 to 1; not below floor."""
    feedback_weight: FeedbackWeight | None = None
    """Multiplies the weight of every signal about it, 0.25 to 2: above 1 it learns faster, below 1 slower."""
    attributes: JsonObject | None = None
    """Free-form JSON that replaces its attributes as a whole (they are not merged)."""


class Heuristic(Schema):
    model_config = ConfigDict(frozen=True)

    id: str
    """The heuristic's id: the caller's, or a generated UUID."""
    tenant: str
    """The tenant that owns it, set by the server from the API key."""
    domain: str
    """The event source it applies to; "" for every source."""
    name: str | None
    """A short display name; None if it has none."""
    condition_text: str
    """The situation it applies to. Events are matched to it by the similarity of their embeddings."""
    action_text: str
    """What to do or say when the condition matches."""
    confidence: float
    """How likely it is to be right, 0 to 1: alpha / (alpha + beta), kept between floor and ceiling."""
    alpha: float
    """Evidence for it: the prior's share plus the weight of the positive signals it got (a pseudo-count; under the
    discounted strategies older evidence fades)."""
    beta: float
    """Evidence against it: the prior's share plus the weight of the negative signals it got (a pseudo-count; under the
    discounted strategies older evidence fades)."""
    origin: Origin
    """Who made it: dev (a developer), pack (a shipped pack), learned (from feedback) or llm."""
    origin_id: str | None
    """Where it came from, by id; a learned heuristic has the response id of the decision that taught it. None if not
    given."""
    locked: bool
    """True: no signal moves its confidence; a PATCH of confidence still sets it."""
    floor: float
    """The lowest confidence it may have, 0 to 1."""
    ceiling: float
    """The highest confidence it may have, 0 to 1."""
    feedback_weight: float
    """Multiplies the weight of every signal about it, 0.25 to 2: above 1 it learns faster, below 1 slower."""
    fire_count: int
    """How many times it fired for an event (recorded by the executive, or through POST /v1/heuristics/{id}/fires)."""
    success_count: int
    """How many of its fires have a positive explicit rating standing (each fire counted once, as its latest rating
    says). Kept apart from confidence."""
    failure_count: int
    """How many of its fires have a negative explicit rating standing (each fire counted once, as its latest rating
    says). Kept apart from confidence."""
    last_fired_at: datetime | None
    """When it last fired (UTC); None if it never has."""
    created_at: datetime
    """When it was created (UTC)."""
    updated_at: datetime
    """When anything about it last changed, its confidence included (UTC)."""
    embedding_model: str | None
    """The model its condition was embedded with; None if it is not embedded yet."""
    attributes: dict[str, Any]
    """Free-form JSON kept with it, returned as is."""
    prior_alpha: float = 1.0
    """The prior's share of alpha: the starting confidence times the prior's strength (2 by default)."""
    prior_beta: float = 1.0
    """The prior's share of beta: one minus the starting confidence, times the prior's strength (2 by default)."""
    evidence_at: datetime | None = None
    """When evidence last arrived (discounted strategies fade evidence from here)."""
    signal_count: int = 0
    """How many feedback signals have changed this heuristic's confidence. With diminishing returns
    switched on (``PHRONESIS_LEARNING__DECAY_K`` above 0, off by default) each new signal weighs
    less the more it already has."""
    ignore_streak: int = 0
    """How many follow-up events in a row ignored its fires. At the configured threshold (3 by default) it gets a
    negative signal and the count starts again; a rating, undo, thanks or timeout resets it."""


class HeuristicCreated(Heuristic):
    """A new heuristic, and whether it repeats one the tenant has."""

    duplicate_of: list[str] = Field(default_factory=list)
    """Heuristics of the same domain with the same condition (case and outer spaces aside), created
    before this one: both are kept and both match the same events."""
    warning: str | None = None
    """Said when ``duplicate_of`` is not empty (e.g. a tour followed twice); None otherwise."""


class HeuristicDetail(Heuristic):
    """A heuristic with its scope (``GET /v1/heuristics/{id}``)."""

    scope: Scope
    """Where it applies besides its condition: ``examples`` and ``counter_examples``, each with its origin (given or
    learned) and what taught it."""


class HeuristicMatch(Schema):
    model_config = ConfigDict(frozen=True)

    heuristic: Heuristic
    """The heuristic that matched."""
    similarity: float
    """Cosine similarity of the query to the situation of the heuristic's scope it matched: its condition or one of
    its examples."""
    score: float
    """similarity × confidence, for display; matches are ranked mostly by similarity, not by this."""
    matched_text: str | None = None
    """The situation it matched: its condition, or one of its examples."""
    matched_example_id: str | None = None
    """The example it matched; None when it matched its condition."""
    counter_similarity: float | None = None
    """The query's similarity to its nearest counter-example, when one is near (it stays below ``similarity``)."""


class ConfidenceUpdate(Schema):
    model_config = ConfigDict(frozen=True)

    heuristic_id: str
    """The heuristic the evidence was about."""
    applied: bool
    """False when the heuristic is locked: nothing changed."""
    old_confidence: float
    """Its confidence before, 0 to 1."""
    new_confidence: float
    """Its confidence after, 0 to 1, within its floor and ceiling."""
    delta: float
    """new_confidence minus old_confidence; 0 when nothing changed."""
    alpha: float
    """Its evidence for, after the update (a pseudo-count, the prior included)."""
    beta: float
    """Its evidence against, after the update (a pseudo-count, the prior included)."""
    source: str
    """Where the signal came from, for example api, user_explicit, dev or implicit_timeout."""
    magnitude: float
    """The signal's strength as sent, before feedback_weight and decay."""
    weight: float = 0.0
    """The evidence actually added: magnitude × feedback_weight, after decay."""
    effect: str = "updated"
    """``updated``, ``locked`` (nothing changes), or ``duplicate`` (this signal's key was already applied)."""
