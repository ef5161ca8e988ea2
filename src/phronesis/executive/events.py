"""The executive's request and response (seed 000 ``ProcessEvent`` in and out), for HTTP, Python and CLI."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, StringConstraints

from phronesis.executive.types import HeuristicCandidate, PersonalityBiases, Salience, Urgency
from phronesis.json_values import JsonObject
from phronesis.schema import Schema

__all__ = ["EventDecision", "EventRequest"]

Source = Annotated[str, StringConstraints(max_length=128, pattern=r"^[A-Za-z0-9._:/-]*$")]


class EventRequest(Schema):
    model_config = ConfigDict(extra="forbid", frozen=True)

    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4000)]
    """The event's raw text (untrusted: it reaches prompts only inside delimiters)."""
    event_id: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = None
    """The caller's id for the event; a UUID when left out."""
    source: Source = ""
    """Where the event came from; heuristics are matched within this source (and general ones)."""
    salience: Salience = Field(default_factory=dict)
    """How salient the event is, by dimension (``threat``, ``novelty`` …), each 0–1. A ``threat``
    of at least 0.9 fires the most similar candidate with confidence of at least 0.95 at once, before any
    strategy runs (both by default); the other dimensions are only recorded."""
    reply_to: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = None
    """What this event answers, if you know: an earlier decision's response_id or the event id it was for. Then, as a
    follow-up, it undoes, thanks or ignores only that decision's fire (see POST /v1/events/observe)."""
    immediate: bool = Field(default=True, strict=True)
    """Whether the event needs an answer now: when no heuristic fires, only an immediate event is
    sent to the LLM; otherwise the decision is rejected (reason ``not_immediate``)."""
    urgency: Urgency = 0.0
    """How urgent the event is, 0–1. Read by the ``urgency_tiered`` strategy only: it lowers the
    heuristic threshold by urgency × a reduction and picks its tier (immediate at ≥ 0.7, soon at
    ≥ 0.3, by default)."""
    goals: list[Annotated[str, StringConstraints(max_length=500)]] | None = Field(default=None, max_length=20)
    """The agent's active goals, added to the LLM's system prompt (at most 20, each at most 500
    characters). None: the server's configured goals (``PHRONESIS_EXECUTIVE__GOALS``)."""
    personality_biases: PersonalityBiases = Field(default_factory=dict)
    """Named threshold adjustments, each in [-1, 1]. ``confidence_threshold`` is added to the
    heuristic threshold (the result clamped to [0.3, 0.95]); without it the tenant's
    ``executive.personality_bias`` applies. Other names are only recorded."""
    user_id: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = None
    """Who the event is about; the default A/B key."""
    candidates: list[HeuristicCandidate] | None = Field(default=None, max_length=20)
    """Explicit candidates, best first. None: matched from heuristic memory."""
    strategy: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    """Force a strategy (replay, tests). None: the configured one, or the A/B arm."""


class EventDecision(Schema):
    """The executive's decision on an event: the response to act on, how it was reached (path,
    strategy, reason), and whether anything failed."""

    model_config = ConfigDict(frozen=True)

    # not ``path != REJECTED`` as the design had it: that called an LLM failure (fallback, empty
    # answer) accepted, and an agent checking ``accepted`` acted on nothing
    accepted: bool
    """There is an answer to act on: a heuristic fired or the LLM answered (``response_text`` is
    not empty). False otherwise: the event was rejected, or the LLM failed or answered nothing."""
    degraded: bool = False
    """A part failed (the LLM timed out, was unreachable, answered nothing): the decision is not
    the one asked for. ``error`` says what failed; the decision record says it too."""
    error: str | None = None
    """What failed, as ``<reason>: <detail>`` (e.g. ``llm_connection_error: …``); None otherwise."""
    response_id: str
    """This decision's id, set by the server on every path: quote it to rate the decision
    (``POST /v1/feedback``) or to look up its record (``GET /v1/decisions/{id}``)."""
    response_text: str
    """The response to act on: the fired heuristic's action or the LLM's answer. Empty when there
    is none (rejected, or the LLM failed)."""
    predicted_success: float
    """Estimated probability, 0–1, that the response achieves the goal: the fired heuristic's
    confidence, or the LLM's own prediction capped at the configured ceiling (0.8 by default;
    0.5 when its prediction could not be read). 0 without a response."""
    prediction_confidence: float
    """How sure that prediction is, 0–1: the heuristic's confidence on the heuristic path, the
    LLM's own (capped likewise) on the LLM path, 0 without a response."""
    prompt_text: str
    """The prompt sent to the LLM; empty when no LLM was asked."""
    decision_path: str
    """How it was decided: ``heuristic`` (a learned heuristic fired), ``llm`` (the LLM answered),
    ``fallback`` (the LLM was asked but gave no answer) or ``rejected`` (no heuristic fired and the
    LLM could not be asked: none configured, or the event not immediate)."""
    matched_heuristic_id: str | None
    """The heuristic that fired on the heuristic path; on the LLM path the best candidate's id (shown
    to the LLM, not necessarily followed); None otherwise."""
    event_id: str
    """The event's id: the caller's, or a UUID made by the server."""
    strategy: str
    """The strategy that decided (``heuristic_first``, ``always_llm``, ``urgency_tiered``): the
    request's, the A/B experiment's arm, the tenant's or the configured one
    (``metadata.strategy_source`` says which)."""
    reason: str | None = None
    """Why the decision took an unusual path, as a code: ``llm_unavailable`` or ``not_immediate``
    (rejected), ``llm_no_response`` (fallback), ``emergency_fast_path`` (a threat fired a heuristic
    before the strategy ran). None otherwise."""
    candidates: list[HeuristicCandidate] = Field(default_factory=list)
    """The heuristics the decision considered, best first: those matched from heuristic memory (or
    given in the request), less any this event just undid. Empty when none matched."""
    metadata: JsonObject = Field(default_factory=dict)
    """How it was decided, for explanation: e.g. the threshold used, the candidates shown to the
    LLM, exploration, what failed. Keys vary with the strategy and path."""
    latency_ms: float = 0.0
    """How long the server took to decide, in milliseconds (LLM calls included)."""
    explanation: str = ""
    """The decision in one sentence, from its record: the same as ``GET /v1/decisions/{response_id}``
    says (what fired and why it won, what the LLM was asked, or why nothing was done)."""
