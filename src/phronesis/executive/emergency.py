"""The GLADyS orchestrator's emergency fast path, as a configurable rule.

An event with threat salience ≥ 0.9 fires its most similar candidate with confidence ≥ 0.95
before any strategy runs: a fire alarm does not wait for an A/B arm or an LLM, nor for a
weaker heuristic that happens to match more closely.

A threat that no heuristic answers is never rejected in silence ("fire! smoke pouring out of the
kitchen" at threat 0.95 matches no condition within 0.7, and would otherwise be rejected): it goes to the
LLM even when the event is not ``immediate``, and without an LLM the decision says why
(``emergency_unmatched``), a reason the dashboard lists and filters by.
"""

from __future__ import annotations

from dataclasses import dataclass

from phronesis.executive.types import DecisionContext, HeuristicCandidate

__all__ = ["EmergencyRule"]


@dataclass(frozen=True, slots=True)
class EmergencyRule:
    enabled: bool = True
    min_confidence: float = 0.95
    min_threat: float = 0.9

    def threatening(self, context: DecisionContext) -> bool:
        return self.enabled and context.salience.get("threat", 0.0) >= self.min_threat

    def candidate(self, context: DecisionContext) -> HeuristicCandidate | None:
        if not self.threatening(context):
            return None
        return next((c for c in context.candidates if c.confidence >= self.min_confidence), None)
