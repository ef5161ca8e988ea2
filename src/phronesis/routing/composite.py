"""Seed 002's composite confidence, computed from real signals and actually used.

``0.3·source_quality + 0.2·(1 − query_complexity) + 0.3·context_completeness +
0.2·tool_success_rate``, × 0.5 when sources conflict. The original computes this and never
calls it (ORIGINS §2); here it is the decision's confidence, as in the seed (the router's
confidence is its intent clarity; ``routing.router_weight`` blends the router in), the seed's
penalties (conflict × 0.5, retrieval failure × 0.7) multiply it, and a composite in the
escalation band escalates whatever a blend says (a 50/50 blend with a sure router never falls
below 0.5, so four failed tool calls would never escalate).

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

from phronesis.routing.retrieval import RetrievedSource
from phronesis.routing.sessions import Session
from phronesis.routing.settings import RoutingSettings
from phronesis.schema import Schema

__all__ = [
    "CompositeConfidence",
    "compose",
    "context_completeness",
    "query_complexity",
    "relevance",
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
    """Seed 002: "1.0 = full context (lead history, past interactions, clear intent)". 0.4 × the share
    of the CRM fields the seed's prompt uses that are known, 0.15 × conversation depth (prior turns,
    saturating at 4), 0.45 × how clear the intent is (the router's confidence in its decision).

    The seed puts a first interaction with a clear request at 0.6 and one with lead context at 0.8:
    here a clear anonymous first message is 0.45, a known lead's 0.85, 1 with a full lead, history
    and a clear intent, a vague anonymous first message near 0. (At 0.5 × lead + 0.3 ×
    intent a first anonymous turn would score 0.24, and an LLM sure of RETRIEVE with the pricing page
    found would end in CLARIFY. 0.6 for intent decides a little better on the sales set's dev half,
    but then a session whose every tool call failed does not reach the escalation band.)"""
    known = [f for f in lead_fields if session.lead_context.get(f) not in (None, "", [], {})]
    lead = len(known) / len(lead_fields) if lead_fields else 1.0
    prior_turns = session.message_count  # the current query is stored only when the turn commits
    history = min(1.0, prior_turns / 4)
    intent = min(1.0, max(0.0, intent_clarity))
    value = 0.4 * lead + 0.15 * history + 0.45 * intent
    return value, {"lead_fields_known": known, "prior_turns": prior_turns, "intent_clarity": round(intent, 4)}


UNRELATED_SIMILARITY = 0.2
"""all-MiniLM-L6-v2's cosine between a question and a paragraph on another subject."""
EXACT_SIMILARITY = 0.7
"""… and between a question and the paragraph that answers it word for word: the model's cosines
between a short question and a document never approach 1, so a raw cosine of 0.64 for "What is
your Starter plan pricing?" against the pricing page is an exact match, not a mediocre one."""


def relevance(similarity: float) -> float:
    """A source's cosine on the seed's scale: 0 unrelated, 1 an exact match."""
    return min(1.0, max(0.0, (similarity - UNRELATED_SIMILARITY) / (EXACT_SIMILARITY - UNRELATED_SIMILARITY)))


def source_quality(sources: Sequence[RetrievedSource]) -> tuple[float, dict[str, Any]]:
    """Seed 002: 1.0 = perfect match from a high-authority source, 0.5 a decent match from a medium
    one, 0 = nothing relevant.

    The best kept source's relevance × its doc type's quality. Weaker sources kept beside it do not
    lower it (an exact pricing page with two loosely related FAQs is still an exact match); they
    are recorded."""
    if not sources:
        return 0.0, {"sources": 0}
    graded = sorted((relevance(s.similarity) * s.quality for s in sources), reverse=True)[:3]
    return min(1.0, graded[0]), {"sources": len(sources), "graded": [round(g, 4) for g in graded]}


class CompositeConfidence(Schema):
    value: float
    """The composite confidence: the weighted factors, × the conflict penalty when sources conflict."""
    base: float = 0.0
    """The weighted factors alone (the routing service blends this with the router's confidence and
    applies the penalties to the blend, so a penalty acts on the final confidence)."""
    factors: dict[str, float | None]
    """Each factor's value; None where it did not apply."""
    weights: dict[str, float]
    """The weights used (renormalised when a factor did not apply)."""
    conflict: bool
    """Whether retrieved sources conflict (state different figures); if so ``value`` carries the
    conflict penalty."""
    details: dict[str, Any]
    """How each factor was measured: ``query_complexity`` (word, analysis-term, comparison, extra
    question and clause counts), ``context_completeness`` (lead fields known, prior turns, intent
    clarity) and ``source_quality`` (sources graded, or ``applicable`` false)."""


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
