"""A routing decision in words (seed 002), from its record: the decision and its band, who made it
(a rule, the local router, the LLM, the conversation), what answered it and whether sources agree."""

from __future__ import annotations

from typing import Any

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.words import count, quoted, score

__all__ = ["explain_routing"]

_ESCALATED = {
    "sensitive_topic_detected": "a sensitive topic",
    "explicit": "the user asked for a person",
    "router_decided": "the router read it as one for a person",
    "confidence_below_threshold": "the confidence is below the threshold",
    "retrieval_failure": "the knowledge base could not be searched",
    "repeated_clarification": "it asked to clarify too often",
    "internal_error": "an internal error",
    "human_owned": "a person owns the session",
}


def explain_routing(record: NewDecisionRecord) -> str:
    a = record.attributes
    if record.path == "tool_outcome":
        return f"the tool reported back: next {record.action or 'nothing'} ({record.reason or 'no reason given'})"
    band = f" ({a['band']} band)" if a.get("band") else ""
    parts = [f"{record.action} at {score(record.confidence)}{band}", _who(record), _banded(record)]
    sources: list[dict[str, Any]] = list(a.get("sources") or [])
    if sources:
        top = sources[0]
        more = f" and {count(len(sources) - 1, 'other')}" if len(sources) > 1 else ""
        parts.append(
            f"{quoted(top.get('title') or top.get('id'), 40)} answered (score {score(top.get('score'))}){more}"
        )
        conflicts: list[dict[str, Any]] = list(a.get("conflicts") or [])
        parts.append(
            f"{count(len(conflicts), 'conflict')}: {conflicts[0].get('reason')}" if conflicts else "no conflict"
        )
    elif record.action == "RETRIEVE":
        parts.append("no source found" if not a.get("retrieval_error") else f"retrieval failed: {a['retrieval_error']}")
    if a.get("degraded"):
        parts.append(f"degraded: {a['degraded']}")
    question = (a.get("pending") or {}).get("question")
    if record.action == "CLARIFY" and question:
        parts.append(f"asks {quoted(question)}")
    return "; ".join(part for part in parts if part)


def _banded(record: NewDecisionRecord) -> str:
    """Why the decision is not the one the router made: the bands' rule (seed 002's confidence bands)."""
    bands = record.attributes.get("bands") or {}
    local = record.attributes.get("local") or {}
    decided = bands.get("decision") if bands.get("decision") != record.action else local.get("label")
    if not decided or decided == record.action or local.get("abstained"):  # an abstention says why itself
        return ""
    rule = bands.get("rule")
    missing = record.attributes.get("missing_parameters") or []
    if missing:
        needs = ", ".join(sorted({f"{m.get('tool')} needs {m.get('field')}" for m in missing}))
        return f"{decided} became {record.action}: {needs}"
    if rule == "clarify":  # a CLARIFY before the bands: the checks changed it, and its reasoning says why
        reasoning = str(record.attributes.get("reasoning") or "")
        _, _, checks = reasoning.partition("; ")
        return f"{decided} became {record.action}: {checks or 'the checks asked a question'}"
    why = {"nothing_found": "nothing was found in the knowledge base"}.get(str(rule), str(rule))
    return f"{decided} became {record.action}: {why}"


def _who(record: NewDecisionRecord) -> str:
    a = record.attributes
    if record.action == "ESCALATE" and record.reason:
        why = _ESCALATED.get(record.reason, record.reason)
        topics = a.get("sensitive_topics")
        return f"escalated: {why}" + (f" ({', '.join(map(str, topics))})" if topics else "")
    if record.path == "rule":
        return f"by rule: {a.get('reasoning') or record.reason or 'one of the seed rules'}"
    if record.path == "dialogue":
        pending = a.get("pending_before") or {}
        tool = pending.get("tool")
        return f"an answer to its own question{f' for {tool}' if tool else ''}"
    if record.path == "llm":
        return f"the LLM decided{f' ({record.model})' if record.model else ''}"
    local = a.get("local") or {}
    if local.get("abstained"):
        return (
            f"the local router abstained ({local['abstained']}; its best guess {local.get('label')} "
            f"at {score(local.get('probability'))})"
        )
    if local:
        return f"the local router said {local.get('label')} ({score(local.get('probability'))})"
    if record.path == "fallback":
        return f"fell back: {record.reason or 'the router failed'}"
    return ""
