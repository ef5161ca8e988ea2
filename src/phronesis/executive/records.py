"""An executive decision as the audit log records it: one shape for the service and for anything
that must write what the service writes (a replay test's logs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from phronesis.audit.models import NewDecisionRecord
from phronesis.executive.types import DecisionContext, DecisionResult

__all__ = ["executive_record"]


def executive_record(
    tenant: str,
    context: DecisionContext,
    result: DecisionResult,
    strategy: str,
    assignment: str | None,
    latency_ms: float,
    *,
    set_aside: Sequence[Mapping[str, str]] = (),
) -> NewDecisionRecord:
    """Everything a decision was given (every candidate with its confidence) and everything it
    chose and why: what the dashboard explains and a replay re-decides."""
    return NewDecisionRecord(
        id=result.response_id,
        tenant=tenant,
        kind="executive",
        subject_id=context.event_id,
        strategy=strategy,
        path=result.path.value,
        action=result.response_text or None,
        confidence=result.predicted_success,
        inputs={
            "event_text": context.event_text,
            "event_source": context.event_source,
            "salience": context.salience,
            "immediate": context.immediate,
            "urgency": context.urgency,
            "goals": context.goals,
            "personality_biases": context.personality_biases,
            "bias_source": context.bias_source,
            "base_threshold": context.base_threshold,
            "candidates": [c.model_dump() for c in context.candidates],
        },
        prompt=result.prompt_text or None,
        raw_llm_output=result.raw_llm_output,
        model=result.model,
        latency_ms=latency_ms,
        prompt_tokens=result.prompt_tokens or None,
        completion_tokens=result.completion_tokens or None,
        llm_calls=result.llm_calls,
        reason=result.metadata.get("reason"),
        attributes={
            **result.metadata,
            "matched_heuristic_id": result.matched_heuristic_id,
            "predicted_success": result.predicted_success,
            "prediction_confidence": result.prediction_confidence,
            "assignment": assignment,
            # only when memory set some aside: a caller's own (GLADyS's, ``logs.call_notes``) stay
            **({"candidates_set_aside": [dict(s) for s in set_aside]} if set_aside else {}),
        },
    )
