"""A routing decision in words, from its record (issue 52)."""

from __future__ import annotations

from typing import Any

from phronesis.audit.models import NewDecisionRecord
from phronesis.explanations import about, explain


def _record(action: str, path: str, confidence: float, **attributes: Any) -> NewDecisionRecord:
    reason = attributes.pop("reason", None)
    return NewDecisionRecord(
        id="d1", tenant="t", kind="routing", path=path, action=action, confidence=confidence, reason=reason,
        inputs={"query": "How much   is the\nPro plan?", "session_id": "s1"}, attributes=attributes,
    )  # fmt: skip


def test_retrieve_says_its_band_who_decided_what_answered_and_whether_sources_agree() -> None:
    local = {"label": "RETRIEVE", "probability": 0.97}
    sources = [
        {"id": "doc-1", "title": "Plans and pricing", "score": 0.741},
        {"id": "doc-2", "title": "FAQ", "score": 0.6},
    ]
    record = _record("RETRIEVE", "local", 0.81, band="high", local=local, sources=sources, conflicts=[])
    assert explain(record) == (
        "RETRIEVE at 0.81 (high band); the local router said RETRIEVE (0.97); "
        "'Plans and pricing' answered (score 0.74) and 1 other; no conflict"
    )
    conflict = [{"first": "doc-1", "second": "doc-2", "reason": "prices differ: 10 vs 12"}]
    assert explain(_record("RETRIEVE", "local", 0.4, band="low", sources=sources, conflicts=conflict)).endswith(
        "; 1 conflict: prices differ: 10 vs 12"
    )


def test_clarify_says_what_became_of_the_router_s_decision_and_its_question() -> None:
    record = _record(
        "CLARIFY",
        "local",
        0.49,
        band="low",
        local={"label": "RETRIEVE", "probability": 0.99},
        bands={"decision": "RETRIEVE", "rule": "nothing_found"},
        pending={"question": "Which plan do you mean?"},
    )
    assert explain(record) == (
        "CLARIFY at 0.49 (low band); the local router said RETRIEVE (0.99); RETRIEVE became CLARIFY: "
        "nothing was found in the knowledge base; asks 'Which plan do you mean?'"
    )


def test_a_clarify_the_checks_made_says_the_checks_reason_not_a_band() -> None:
    """The trial: "USE_TOOL became CLARIFY: the confidence is in the low band", where no tool was
    registered (the composite 0.695, medium; the CLARIFY's own confidence is what is low)."""
    record = _record(
        "CLARIFY",
        "local",
        0.49,
        band="low",
        local={"label": "USE_TOOL", "probability": 0.74},
        bands={"decision": "CLARIFY", "rule": "clarify"},
        reasoning="local router: USE_TOOL (p=0.74); no registered tool does it: no tool is registered",
    )
    assert explain(record) == (
        "CLARIFY at 0.49 (low band); the local router said USE_TOOL (0.74); USE_TOOL became CLARIFY: "
        "no registered tool does it: no tool is registered"
    )


def test_an_escalation_says_why_and_an_answer_to_its_own_question_says_so() -> None:
    escalated = _record(
        "ESCALATE", "rule", 0.1, band="low", reason="sensitive_topic_detected", sensitive_topics=["refund"]
    )
    assert explain(escalated) == "ESCALATE at 0.10 (low band); escalated: a sensitive topic (refund)"
    answered = _record("USE_TOOL", "dialogue", 0.83, band="high", pending_before={"tool": "calendar"})
    assert explain(answered) == "USE_TOOL at 0.83 (high band); an answer to its own question for calendar"


def test_a_row_is_about_the_query_on_one_line() -> None:
    assert about(_record("RETRIEVE", "local", 0.8)) == "How much is the Pro plan?"
