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
    heuristic_threshold: Probability = 0.7
    personality_bias: float = Field(default=0.0, ge=-0.5, le=0.5, allow_inf_nan=False)
    """Seed 000 F-24's ``confidence_threshold`` bias for an event that carries none of its own
    ("populated from user profile or domain config"): this deployment's domain default."""
    goals: Annotated[list[str], NoDecode, split_on(";")] = Field(default_factory=list)
    max_candidates: int = Field(default=3, ge=1, le=5)  # seed 000: default 3, hard max 5
    llm_confidence_ceiling: Probability = 0.8
    max_concurrent_llm: int = Field(default=3, ge=1, le=1024)
    endorsement_threshold: Probability = 0.75
    endorsement_weight: float = Field(default=0.0, ge=0.0, le=10.0)
    """Seed 000 F-04: convergence does not boost confidence (0). GLADyS bootstrapped with 0.5."""
    known_sources: Annotated[list[str], NoDecode, split_on(",")] = Field(default_factory=list)
    """When set, an event from any other source is refused (422). Empty: any well-formed source."""
    system_prompt_file: Path | None = None
    prediction_prompt_file: Path | None = None
    trace_retention_s: PositiveSeconds = 7 * 24 * 3600.0
    """How long a decision accepts feedback (GLADyS kept traces 300 s in memory and lost later feedback)."""
    urgency_threshold_reduction: Probability = 0.3
    """urgency_tiered: effective threshold = base − urgency × reduction (seed 000, Selection Strategy)."""
    urgency_immediate_min: Probability = 0.7
    urgency_soon_min: Probability = 0.3
    urgency_reasonable_similarity: Probability = 0.7
    """Immediate tier: any candidate at least this similar is a "reasonable match"."""
    urgency_high_similarity: Probability = 0.85
    """Not-urgent tier: only a single candidate this similar (and above threshold) fires."""
    probation_after_sec: float = Field(default=3600.0, ge=0.0, le=30 * 86400.0)
    """The recovery rule (``executive.recovery``): a heuristic pushed below the threshold by one
    undo or complaint may fire once more, on probation, this long after it; 0 at once."""
    recovery_enabled: bool = True
    emergency_enabled: bool = True
    emergency_min_confidence: Probability = 0.95  # GLADyS orchestrator emergency fast path
    emergency_min_threat: Probability = 0.9
    experiment_arms: dict[str, float] = Field(default_factory=dict)
    """A/B split: strategy name → weight, e.g. ``{"heuristic_first": 0.5, "always_llm": 0.5}``. Empty: no experiment."""
    experiment_key: Literal["user", "source", "event"] = "user"
    experiment_salt: str = "phronesis"
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
    learned_confidence: Probability = 0.3  # F-06: LLM-path heuristics start at 0.3
    pattern_min_words: int = Field(default=10, ge=1, le=1000)
    pattern_max_words: int = Field(default=50, ge=1, le=1000)

    @model_validator(mode="after")
    def _consistent(self) -> ExecutiveSettings:
        if self.urgency_soon_min > self.urgency_immediate_min:
            raise ValueError("urgency_soon_min must not exceed urgency_immediate_min")
        if self.pattern_min_words > self.pattern_max_words:
            raise ValueError("pattern_min_words must not exceed pattern_max_words")
        if any(not (weight > 0.0 and weight < float("inf")) for weight in self.experiment_arms.values()):
            raise ValueError("experiment_arms weights must be positive numbers")
        return self
