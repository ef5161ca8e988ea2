"""Seed 002's five decisions, its ``DecisionOutput``, and the validation every output passes.

"Invalid decisions → fallback to ESCALATE with low confidence" (seed 002, Decision
Validation): ``validate_output`` never raises for a bad decision; it returns the fallback
and the rule that was broken, which the decision record keeps.
"""

from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum

from pydantic import ConfigDict, Field

from phronesis.schema import Schema

__all__ = [
    "FALLBACK_CONFIDENCE",
    "Decision",
    "DecisionOutput",
    "EscalationReason",
    "validate_output",
]


class Decision(StrEnum):
    RETRIEVE = "RETRIEVE"
    REASON_ONLY = "REASON_ONLY"
    USE_TOOL = "USE_TOOL"
    CLARIFY = "CLARIFY"
    ESCALATE = "ESCALATE"


class EscalationReason(StrEnum):
    """Every reason seed 002 names (and the checklist's), plus the ones our extra rules add."""

    CONFIDENCE_BELOW_THRESHOLD = "confidence_below_threshold"
    SENSITIVE_TOPIC = "sensitive_topic_detected"
    INTERNAL_ERROR = "internal_error"
    ERROR_IN_PROCESSING = "error_in_processing"
    RETRIEVAL_FAILURE = "retrieval_failure"
    TOOL_FAILURE = "tool_failure"
    RESPONSE_GENERATION_ERROR = "response_generation_error"
    INVALID_DECISION = "invalid_decision"
    OUT_OF_SCOPE = "out_of_scope"
    REPEATED_CLARIFICATION = "repeated_clarification"
    EXPLICIT = "explicit"
    """The user asked for a person (seed 002's explicit request rule)."""
    ROUTER = "router_decided"
    """The router read the turn as one for a person, with no seed rule behind it (no sensitive topic,
    no ask for a person): the dashboard's reasons tell it from the user's own request."""
    REQUESTED = "requested_by_caller"
    NO_SUITABLE_TOOL = "no_suitable_tool"
    """USE_TOOL, but no registered tool does what was asked: a person can."""


FALLBACK_CONFIDENCE = 0.1
"""'ESCALATE with low confidence': below the 0.5 escalation band, and plainly a fallback."""


class DecisionOutput(Schema):
    """What a router decides (seed 002 ``DecisionOutput``), before phronesis checks it."""

    model_config = ConfigDict(extra="forbid")

    decision: Decision
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    reasoning: str = Field(default="", max_length=2000)
    required_tools: list[str] = Field(default_factory=list, max_length=16)
    retrieval_needed: bool = False
    retrieval_query: str | None = Field(default=None, max_length=2000)
    escalation_reason: str | None = Field(default=None, max_length=256)
    clarifying_question: str | None = Field(default=None, max_length=1000)
    tool_arguments: dict[str, dict[str, object]] = Field(default_factory=dict)
    intent: str | None = Field(default=None, max_length=128)


def validate_output(
    output: DecisionOutput, *, query: str, registered_tools: Collection[str]
) -> tuple[DecisionOutput, str | None]:
    """Seed 002's five rules; the first one broken gives the ESCALATE fallback and its name.

    Rules 1 and 2 (one of five types; confidence in [0, 1]) hold by construction of the
    model, so an LLM answer that breaks them never gets this far: ``generate_structured``
    turns it into a failure, which the caller maps to the same fallback.
    """
    problem: str | None = None
    if output.decision is Decision.USE_TOOL:
        if not output.required_tools:
            problem = "use_tool_without_tools"
        elif unknown := sorted(set(output.required_tools) - set(registered_tools)):
            problem = f"unregistered_tools:{','.join(unknown)}"
    elif output.decision is Decision.RETRIEVE:
        if not (output.retrieval_query or query).strip():
            problem = "retrieve_without_query"
        elif not output.retrieval_needed:
            output = output.model_copy(update={"retrieval_needed": True})  # RETRIEVE implies it
    elif output.decision is Decision.ESCALATE and not (output.escalation_reason or "").strip():
        problem = "escalate_without_reason"
    if problem is None:
        return output, None
    return (
        DecisionOutput(
            decision=Decision.ESCALATE,
            confidence=FALLBACK_CONFIDENCE,
            reasoning=f"router output failed validation: {problem}",
            escalation_reason=EscalationReason.INVALID_DECISION.value,
        ),
        problem,
    )
