"""Seed 002's composite confidence, computed from real signals and actually used.

``0.3·source_quality + 0.2·(1 − query_complexity) + 0.3·context_completeness +
0.2·tool_success_rate``, × 0.5 when sources conflict. The original computes this and never
calls it (ORIGINS §2); here it is blended with the router's own confidence, the seed's
penalties (conflict × 0.5, retrieval failure × 0.7) multiply the blend, and a composite in
the escalation band escalates whatever the router says (issue 22: with a sure router the
blend never fell below 0.5, so four failed tool calls never escalated).

Source quality is only a factor when sources are in play: a decision that retrieves (or a
session that retrieved before). For "Thanks, that helps!" there is nothing to grade, and
scoring it 0 would push every acknowledgement into the escalation band; the factor is
marked not applicable and the other weights are renormalised — recorded, so the record
shows which factors counted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from phronesis.routing.retrieval import RetrievedSource
from phronesis.routing.sessions import Session
from phronesis.settings import RoutingSettings

__all__ = [
    "CompositeConfidence",
    "compose",
    "context_completeness",
    "query_complexity",
    "source_quality",
]

_WORD = re.compile(r"[A-Za-z0-9']+")
_ANALYSIS = re.compile(
    r"\b(?:analy[sz]e|analysis|recommend\w*|optimi[sz]\w*|evaluate|assess|design|strategy|plan out|audit|diagnose)\b",
    re.I,
)
_COMPARISON = re.compile(r"\b(?:compare[sd]?|comparison|versus|vs\.?|better than|differences?|alternatives?)\b", re.I)
_CLAUSE = re.compile(r"\b(?:and|or|but|also|then|if|because|while|whereas)\b", re.I)


def query_complexity(query: str) -> tuple[float, dict[str, Any]]:
    """0 for "What's your pricing?", ~0.5 for a comparison, ~1 for "analyze my workflow and recommend…".

    From length and structure: words (saturating at 40), analysis verbs (+0.3 each),
    comparisons (+0.25), extra questions and clause joiners (+0.1 each).
    """
    words = len(_WORD.findall(query))
    analysis = len(_ANALYSIS.findall(query))
    comparison = len(_COMPARISON.findall(query))
    extra_questions = max(0, query.count("?") - 1)
    clauses = len(_CLAUSE.findall(query))
    value = min(1.0, words / 40 + 0.3 * analysis + 0.25 * comparison + 0.1 * (extra_questions + clauses))
    return value, {
        "words": words,
        "analysis_terms": analysis,
        "comparisons": comparison,
        "extra_questions": extra_questions,
        "clauses": clauses,
    }


def context_completeness(
    session: Session, lead_fields: Sequence[str], intent_clarity: float = 0.0
) -> tuple[float, dict[str, Any]]:
    """Seed 002: "1.0 = full context (lead history, past interactions, clear intent)". 0.5 × the share
    of the CRM fields the seed's prompt uses that are known, 0.2 × conversation depth (prior turns,
    saturating at 4), 0.3 × how clear the intent is (the router's confidence in its decision).

    A first, anonymous but clear message is 0.3, not 0 (issue 22: an LLM sure of RETRIEVE with an
    exact document found could not reach the high band on a first turn); a known lead's first clear
    message 0.8 (the seed's examples put that at 0.6–0.8); 1 with a full lead, history and a clear intent."""
    known = [f for f in lead_fields if session.lead_context.get(f) not in (None, "", [], {})]
    lead = len(known) / len(lead_fields) if lead_fields else 1.0
    prior_turns = session.message_count  # the current query is stored only when the turn commits
    history = min(1.0, prior_turns / 4)
    intent = min(1.0, max(0.0, intent_clarity))
    value = 0.5 * lead + 0.2 * history + 0.3 * intent
    return value, {"lead_fields_known": known, "prior_turns": prior_turns, "intent_clarity": round(intent, 4)}


def source_quality(sources: Sequence[RetrievedSource]) -> tuple[float, dict[str, Any]]:
    """Seed 002: 1.0 = perfect match from a high-authority source, 0 = nothing relevant.

    The best kept source's similarity × its doc type's quality, averaged with the next two
    (a single lucky hit is weaker evidence than three agreeing ones)."""
    if not sources:
        return 0.0, {"sources": 0}
    graded = sorted((max(0.0, s.similarity) * s.quality for s in sources), reverse=True)[:3]
    value = 0.5 * graded[0] + 0.5 * (sum(graded) / len(graded))
    return min(1.0, value), {"sources": len(sources), "graded": [round(g, 4) for g in graded]}


class CompositeConfidence(BaseModel):
    value: float
    """The seed's composite: the weighted factors, × the conflict penalty when sources conflict."""
    base: float = 0.0
    """The weighted factors alone (the routing service blends this with the router's confidence and
    applies the penalties to the blend, so a penalty acts on the final confidence as the seed says)."""
    factors: dict[str, float | None]
    """Each factor's value; None where it did not apply."""
    weights: dict[str, float]
    """The weights used (renormalised when a factor did not apply)."""
    conflict: bool
    details: dict[str, Any]


def compose(
    settings: RoutingSettings,
    *,
    source_quality_value: float | None,
    complexity: float,
    completeness: float,
    tool_success_rate: float,
    conflict: bool,
    details: Mapping[str, Any],
) -> CompositeConfidence:
    factors: dict[str, float | None] = {
        "source_quality": source_quality_value,
        "query_complexity": complexity,
        "context_completeness": completeness,
        "tool_success_rate": tool_success_rate,
    }
    base_weights = {
        "source_quality": settings.weight_source_quality,
        "query_complexity": settings.weight_query_complexity,
        "context_completeness": settings.weight_context_completeness,
        "tool_success_rate": settings.weight_tool_success,
    }
    terms = {
        "source_quality": source_quality_value,
        "query_complexity": 1.0 - complexity,
        "context_completeness": completeness,
        "tool_success_rate": tool_success_rate,
    }
    applicable = {k: w for k, w in base_weights.items() if terms[k] is not None}
    total = sum(applicable.values()) or 1.0
    weights = {k: w / total for k, w in applicable.items()}
    base = max(0.0, min(1.0, sum(weights[k] * float(terms[k] or 0.0) for k in weights)))
    value = base * settings.conflict_penalty if conflict else base
    return CompositeConfidence(
        value=value,
        base=base,
        factors=factors,
        weights={k: round(w, 4) for k, w in weights.items()},
        conflict=conflict,
        details=dict(details),
    )
