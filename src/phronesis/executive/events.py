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
    immediate: bool = True
    urgency: Urgency = 0.0
    goals: list[Annotated[str, StringConstraints(max_length=500)]] | None = Field(default=None, max_length=20)
    """Active goals (F-07). None: the configured ``EXECUTIVE_GOALS``."""
    personality_biases: PersonalityBiases = Field(default_factory=dict)
    user_id: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = None
    """Who the event is about; the default A/B key."""
    candidates: list[HeuristicCandidate] | None = Field(default=None, max_length=20)
    """Explicit candidates, best first. None: matched from heuristic memory."""
    strategy: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    """Force a strategy (replay, tests). None: the configured one, or the A/B arm."""


class EventDecision(Schema):
    """Seed 000 ``ProcessEventResponse`` plus the strategy and the reason, for explainability."""

    model_config = ConfigDict(frozen=True)

    accepted: bool
    """There is an answer to act on: a heuristic fired or the LLM answered (``response_text`` is
    not empty). Seed 000 said ``path != REJECTED``, which called an LLM failure (FALLBACK, empty
    answer) accepted; an agent checking ``accepted`` acted on nothing (issue 20)."""
    degraded: bool = False
    """A part failed (the LLM timed out, was unreachable, answered nothing): the decision is not
    the one asked for. ``error`` says what failed; the decision record says it too."""
    error: str | None = None
    """What failed, as ``<reason>: <detail>`` (e.g. ``llm_connection_error: …``); None otherwise."""
    response_id: str
    response_text: str
    predicted_success: float
    prediction_confidence: float
    prompt_text: str
    decision_path: str
    matched_heuristic_id: str | None
    event_id: str
    strategy: str
    reason: str | None = None
    candidates: list[HeuristicCandidate] = Field(default_factory=list)
    metadata: JsonObject = Field(default_factory=dict)
    latency_ms: float = 0.0
