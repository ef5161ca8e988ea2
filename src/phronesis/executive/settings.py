"""The executive's settings section (seed 000; ``PHRONESIS_EXECUTIVE__*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator
from pydantic_settings import NoDecode

from phronesis.schema import Schema
from phronesis.settings_parts import PositiveSeconds, Probability, split_on

__all__ = ["ExecutiveSettings"]


class ExecutiveSettings(Schema):
    decision_strategy: str = "heuristic_first"
    """Seed 000: the strategy that decides an event: ``heuristic_first``, ``always_llm`` (every immediate
    event to the LLM, the A/B baseline) or ``urgency_tiered``. An event's own strategy, an A/B arm
    (``experiment_arms``) and a tenant's applied ``executive.strategy`` come first; an unknown name stops start-up."""
    heuristic_threshold: Probability = 0.7
    """Seed 000: the confidence a candidate needs to fire on the heuristic path, before the event's
    personality bias (and, for ``urgency_tiered``, its urgency) moves it, clamped to [0.3, 0.95]. A
    tenant's applied ``executive.heuristic_threshold`` replaces it."""
    personality_bias: float = Field(default=0.0, ge=-0.5, le=0.5, allow_inf_nan=False)
    """Seed 000 F-24's ``confidence_threshold`` bias for an event that carries none of its own
    ("populated from user profile or domain config"): this deployment's domain default."""
    goals: Annotated[list[str], NoDecode, split_on(";")] = Field(default_factory=list)
    """Seed 000 F-07: the active goals added to the LLM's system prompt (and to its success prediction) for
    an event that sends none of its own; ``;``-separated, or a JSON list."""
    max_candidates: int = Field(default=3, ge=1, le=5)  # seed 000: default 3, hard max 5
    """Seed 000 F-04: how many of the best candidates the LLM path's prompt shows (condition and action
    only, in a shuffled order)."""
    llm_confidence_ceiling: Probability = 0.8
    """Seed 000 F-06: the LLM path's ``predicted_success`` and ``prediction_confidence`` are capped at this
    (an LLM's self-reported confidence is uncalibrated)."""
    max_concurrent_llm: int = Field(default=3, ge=1, le=1024)
    """LLM calls the executive (its decisions, and the patterns it learns from ratings) may have in flight
    at once in one process; more wait their turn (GLADyS: 3). ``llm.max_concurrency`` bounds every LLM call
    of the process."""
    endorsement_threshold: Probability = 0.75
    """Seed 000 F-04 convergence: an LLM answer at least this similar (cosine) to a shown candidate's action
    is recorded as converging with that heuristic; with ``endorsement_weight`` above 0 the heuristic is
    also endorsed, by weight × similarity."""
    endorsement_weight: float = Field(default=0.0, ge=0.0, le=10.0)
    """Seed 000 F-04: convergence does not boost confidence (0). GLADyS bootstrapped with 0.5."""
    known_sources: Annotated[list[str], NoDecode, split_on(",")] = Field(default_factory=list)
    """When set, an event from any other source is refused (422). Empty: any well-formed source."""
    system_prompt_file: Path | None = None
    """A file whose text replaces the bundled system prompt of the executive's LLM (seed 000
    ``EXECUTIVE_SYSTEM_PROMPT``); goals are still appended to it. Unset: the bundled prompt. A file that
    cannot be read stops start-up."""
    prediction_prompt_file: Path | None = None
    """A file whose text replaces the bundled prediction prompt (seed 000 ``PREDICTION_PROMPT``: the LLM
    rates its own answer as ``{success, confidence}``); it must contain ``$event``, ``$response`` and
    ``$goals``. Unset: the bundled prompt."""
    trace_retention_s: PositiveSeconds = 7 * 24 * 3600.0
    """How long a decision accepts feedback (GLADyS kept traces 300 s in memory and lost later feedback)."""
    urgency_threshold_reduction: Probability = 0.3
    """urgency_tiered: effective threshold = base − urgency × reduction (seed 000, Selection Strategy)."""
    urgency_immediate_min: Probability = 0.7
    """urgency_tiered: an event at least this urgent is in the immediate tier, which fires the best eligible
    reasonable match (seed 000, Selection Strategy). A tenant may tune it (``executive.urgency.immediate_min``)."""
    urgency_soon_min: Probability = 0.3
    """urgency_tiered: from this urgency up to ``urgency_immediate_min`` an event is in the soon tier, which
    draws among the eligible reasonable matches weighted by similarity × confidence; below it, not urgent."""
    urgency_reasonable_similarity: Probability = 0.7
    """Immediate tier: any candidate at least this similar is a "reasonable match"."""
    urgency_high_similarity: Probability = 0.85
    """Not-urgent tier: only a single candidate this similar (and above threshold) fires."""
    probation_after_sec: float = Field(default=3600.0, ge=0.0, le=30 * 86400.0)
    """The recovery rule (``executive.recovery``): a heuristic pushed below the threshold by one
    undo or complaint may fire once more, on probation, this long after it; 0 at once."""
    recovery_enabled: bool = True
    """The recovery rule: a heuristic that one implicit undo or complaint took below the threshold may fire
    once more, on probation, ``probation_after_sec`` later; if that fire goes well, the undo is taken back."""
    emergency_enabled: bool = True
    """The GLADyS orchestrator's emergency fast path: an event whose threat reaches ``emergency_min_threat``
    fires its most similar candidate at ``emergency_min_confidence`` before any strategy runs, and a
    threat none answers goes to the LLM even when the event is not immediate."""
    emergency_min_confidence: Probability = 0.95  # GLADyS orchestrator emergency fast path
    """Emergency fast path: the confidence a candidate needs to fire on it."""
    emergency_min_threat: Probability = 0.9
    """Emergency fast path: the event's threat salience (``salience["threat"]``, 0–1) from which it applies."""
    experiment_arms: dict[str, float] = Field(default_factory=dict)
    """A/B split: strategy name → weight, e.g. ``{"heuristic_first": 0.5, "always_llm": 0.5}``. Empty: no experiment."""
    experiment_key: Literal["user", "source", "event"] = "user"
    """What the A/B split assigns arms by: the event's ``user_id`` (its event id when it has none), its
    source, or the event itself."""
    experiment_salt: str = "phronesis"
    """Hashed (SHA-256) with the key's value to place it in an arm: another salt reshuffles who gets which arm."""
    exploration_rate: Probability = 0.0
    """heuristic_first: the share of decisions with no confident candidate that may fire one anyway,
    chosen by Thompson sampling from its Beta posterior (0 = off). Each explored fire records its
    propensity, so a heuristic below the threshold can recover without an LLM."""
    observe_on_decide: bool = True
    """An event decided from a source is also that source's follow-up to its open fires (undo,
    thanks, ignore: seed 001), so an agent that only calls decide gets correct learning."""
    learn_from_feedback: bool = True
    """Seed 000 ``ProvideFeedback``: positive feedback on an LLM-path answer teaches a new heuristic."""
    reinforce_threshold: Probability = 0.75  # GLADyS HEURISTIC_REINFORCE_THRESHOLD
    """Learning from a well-rated LLM answer (seed 000 ``ProvideFeedback``): a heuristic whose condition is
    at least this similar to the learned pattern's is reinforced, instead of a new heuristic being created."""
    learned_confidence: Probability = 0.3  # F-06: LLM-path heuristics start at 0.3
    """Seed 000 F-06: the confidence a heuristic learned from a well-rated LLM answer starts at, whatever the
    LLM said of its own answer."""
    pattern_min_words: int = Field(default=10, ge=1, le=1000)
    """Quality gate on a learned pattern (GLADyS ``_check_heuristic_quality``): its condition and its action
    message each need at least this many words, or no heuristic is learned."""
    pattern_max_words: int = Field(default=50, ge=1, le=1000)
    """Quality gate on a learned pattern: its condition and its action message each have at most this many
    words, or no heuristic is learned."""

    @model_validator(mode="after")
    def _consistent(self) -> ExecutiveSettings:
        if self.urgency_soon_min > self.urgency_immediate_min:
            raise ValueError("urgency_soon_min must not exceed urgency_immediate_min")
        if self.pattern_min_words > self.pattern_max_words:
            raise ValueError("pattern_min_words must not exceed pattern_max_words")
        if any(not (weight > 0.0 and weight < float("inf")) for weight in self.experiment_arms.values()):
            raise ValueError("experiment_arms weights must be positive numbers")
        return self
