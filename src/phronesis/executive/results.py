"""The two results every strategy builds without the LLM: fire a heuristic, or reject."""

from __future__ import annotations

from typing import Any

from phronesis.executive.types import DecisionPath, DecisionResult, HeuristicCandidate

__all__ = ["fire", "no_answer", "reject"]


def fire(candidate: HeuristicCandidate, response_id: str, metadata: dict[str, Any]) -> DecisionResult:
    """Seed 000 heuristic path: the action as is, success and confidence = the heuristic's confidence."""
    return DecisionResult(
        path=DecisionPath.HEURISTIC,
        response_text=candidate.suggested_action,
        response_id=response_id,
        matched_heuristic_id=candidate.heuristic_id,
        predicted_success=candidate.confidence,
        prediction_confidence=candidate.confidence,
        prompt_text="",
        metadata=metadata,
    )


def no_answer(
    path: DecisionPath,
    reason: str,
    response_id: str,
    metadata: dict[str, Any],
    *,
    prompt_text: str = "",
    model: str | None = None,
    llm_calls: int = 0,
) -> DecisionResult:
    """A decision with no response: REJECTED or FALLBACK, with the seed's ``reason`` in metadata."""
    return DecisionResult(
        path=path,
        response_text="",
        response_id=response_id,
        matched_heuristic_id=None,
        predicted_success=0.0,
        prediction_confidence=0.0,
        prompt_text=prompt_text,
        metadata={**metadata, "reason": reason},
        model=model,
        llm_calls=llm_calls,
    )


def reject(reason: str, response_id: str, metadata: dict[str, Any]) -> DecisionResult:
    """Seed 000 REJECTED: no response; ``reason`` is ``llm_unavailable`` or ``not_immediate``."""
    return no_answer(DecisionPath.REJECTED, reason, response_id, metadata)
