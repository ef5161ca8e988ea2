"""Seed 000's vocabulary for the executive decision point, typed.

``DecisionContext`` and ``DecisionResult`` are pydantic models (a boundary: the API
builds them from requests) with the seed's field names; ``urgency`` is the one field
added, for the urgency-tiered strategy.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal, Protocol

from pydantic import AfterValidator, ConfigDict, Field

from phronesis.executive.traces import ReasoningTrace
from phronesis.json_values import JsonObject
from phronesis.llm.types import LLMProvider
from phronesis.schema import Schema

__all__ = [
    "DecisionContext",
    "DecisionPath",
    "DecisionResult",
    "DecisionStrategy",
    "Picked",
    "HeuristicCandidate",
]


class DecisionPath(StrEnum):
    """Which path the decision took (seed 000)."""

    HEURISTIC = "heuristic"
    LLM = "llm"
    FALLBACK = "fallback"
    REJECTED = "rejected"


class HeuristicCandidate(Schema):
    """A heuristic that matched the event.

    Only condition and action text are ever shown to the LLM; ``confidence`` and
    ``similarity`` are for the threshold check and ranking, never for the prompt
    (they would anchor it).
    """

    model_config = ConfigDict(frozen=True)

    heuristic_id: str = Field(min_length=1, max_length=64)
    """The heuristic's id in heuristic memory (or the caller's own, for candidates given in a request)."""
    condition_text: str = Field(min_length=1, max_length=4000)
    """The situation the heuristic applies to; shown to the LLM as a previous similar situation."""
    suggested_action: str = Field(min_length=1, max_length=4000)
    """The heuristic's response: what is returned when it fires; shown to the LLM as context."""
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    """The heuristic's confidence, 0–1: it fires when this reaches the strategy's threshold. Never
    shown to the LLM."""
    similarity: float | None = Field(default=None, ge=-1.0, le=1.0, allow_inf_nan=False)
    """Cosine similarity, -1 to 1, of the event text to the heuristic's condition; None when the
    caller gave the candidate without one (``urgency_tiered`` then counts it as a full match)."""
    alpha: float | None = Field(default=None, gt=0.0, allow_inf_nan=False)
    """The heuristic's Beta evidence of success (``beta``: of failure), for exploration; None: taken
    from ``confidence``. Never prompted."""
    beta: float | None = Field(default=None, gt=0.0, allow_inf_nan=False)
    """The heuristic's Beta evidence, for exploration (``executive.exploration``); never prompted."""


def _within(low: float, high: float) -> AfterValidator:
    """Every value in [low, high]; NaN fails the comparison, so it is refused too. The error names the
    key and the value sent (the field is named by where it stands: "salience: threat must be …")."""

    def check(values: dict[str, float]) -> dict[str, float]:
        for key, value in values.items():
            if not low <= value <= high:
                raise ValueError(f"{key} must be in [{low:g}, {high:g}], not {value:g}")
        return values

    return AfterValidator(check)


Salience = Annotated[dict[str, float], _within(0.0, 1.0)]
"""Salience dimensions (threat, novelty …), each in [0, 1]."""
PersonalityBiases = Annotated[dict[str, float], _within(-1.0, 1.0)]
"""F-24 named threshold adjustments, each in [-1, 1] (the result is clamped to [0.3, 0.95])."""
Urgency = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class DecisionContext(Schema):
    """Input to a decision strategy. ``candidates`` are best first; may be empty (F-25 sleep cycle)."""

    model_config = ConfigDict(frozen=True)

    event_id: str = Field(min_length=1, max_length=256)
    """The event's id: the caller's, or a UUID."""
    event_text: str = Field(min_length=1, max_length=8000)
    """The event's text, as the caller sent it."""
    event_source: str = Field(default="", max_length=128)
    """Where the event came from; candidates are matched within it (and general heuristics)."""
    salience: Salience = Field(default_factory=dict)
    """Salience by dimension, each 0–1; a high ``threat`` takes the emergency fast path."""
    candidates: list[HeuristicCandidate] = Field(default_factory=list)
    """The candidate heuristics (matched from memory, or the caller's), best first; empty in the
    sleep cycle's re-evaluation."""
    immediate: bool = True
    """Whether the event needs an answer now: only an immediate event is sent to the LLM."""
    goals: list[str] = Field(default_factory=list)
    """Active goals, added to the LLM's system prompt."""
    personality_biases: PersonalityBiases = Field(default_factory=dict)
    """Named threshold adjustments, each in [-1, 1]; ``confidence_threshold`` moves the heuristic
    threshold."""
    urgency: Urgency = 0.0
    """How urgent the event is, 0–1 (read by ``urgency_tiered``)."""
    base_threshold: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    """The tenant's applied ``executive.heuristic_threshold`` (``tenant_settings``); None: the
    strategy's configured one. Bias and urgency adjust it as they adjust the configured one."""
    urgency_cutoffs: dict[str, float] = Field(default_factory=dict)
    """The tenant's own urgency cut-offs (``executive.urgency.<name>``, ``urgency_tiered.CUTOFFS``)
    over the configured ones; empty: the configured ones."""
    bias_source: Literal["event", "default"] = "event"
    """Where ``personality_biases["confidence_threshold"]`` came from: the event, or the tenant's
    (else the configured) ``executive.personality_bias`` for an event without one. A replay of
    that default changes only the decisions that took it (``replay.executive``)."""


class DecisionResult(Schema):
    """Output of a decision strategy (seed 000), plus the usage needed for the decision record."""

    model_config = ConfigDict(frozen=True)

    path: DecisionPath
    """The path taken: heuristic, llm, fallback or rejected."""
    response_text: str
    """The response: the heuristic's action or the LLM's answer; empty when there is none."""
    response_id: str
    """This decision's id, the one its record and feedback use."""
    matched_heuristic_id: str | None
    """The fired heuristic, or on the LLM path the best candidate; None otherwise."""
    predicted_success: float
    """Probability, 0–1, that the response achieves the goal (the heuristic's confidence, or the
    LLM's capped prediction); 0 without a response."""
    prediction_confidence: float
    """How sure that prediction is, 0–1; 0 without a response."""
    prompt_text: str
    """The prompt sent to the LLM; empty when none was asked."""
    metadata: JsonObject = Field(default_factory=dict)
    """How it was decided (threshold, candidates shown, reason, failure …), recorded with the decision."""
    raw_llm_output: str | None = None
    """The LLM's answer as received; None when it gave none."""
    model: str | None = None
    """The LLM model asked; None when none was."""
    prompt_tokens: int = 0
    """Prompt tokens the LLM reported (both requests of the LLM path together)."""
    completion_tokens: int = 0
    """Completion tokens the LLM reported (both requests of the LLM path together)."""
    llm_calls: int = 0
    """Requests this decision sent to the LLM (``llm.metered``)."""


@dataclass(frozen=True, slots=True)
class Picked:
    """A strategy's cheap stage: the heuristic it fires (None: none), else the context and the
    metadata its LLM path is asked with (the candidates in the order the LLM sees them)."""

    fired: DecisionResult | None
    context: DecisionContext
    metadata: dict[str, Any]


class DecisionStrategy(Protocol):
    """Event decision logic (seed 000). Works with candidates (real time) or without (sleep cycle)."""

    @property
    def name(self) -> str: ...

    def pick(self, context: DecisionContext, *, llm_available: bool) -> Picked:
        """The cheap stage: a heuristic to fire without the LLM, or what the LLM is asked with."""
        ...

    async def ask(self, picked: Picked, llm: LLMProvider | None) -> DecisionResult:
        """The expensive stage: the LLM path, or REJECTED (no LLM, or the event is not immediate)."""
        ...

    async def decide(self, context: DecisionContext, llm: LLMProvider | None) -> DecisionResult:
        """``pick``, then ``ask`` when nothing fired (a sleep cycle's, a benchmark's whole decision)."""
        ...

    async def get_trace(self, response_id: str, *, tenant: str = "default") -> ReasoningTrace | None:
        """The reasoning trace behind ``response_id``, for feedback (durable: a decision record)."""
        ...

    @property
    def config(self) -> dict[str, Any]:
        """Configuration for logging and for the decision record."""
        ...
