"""An executive decision in words, from its record (issue 52): what fired and why it won, what the
LLM said, or why nothing was done, with the record's own numbers."""

from __future__ import annotations

from typing import Any

from phronesis.audit.models import NewDecisionRecord
from phronesis.explanations import explain


def _record(path: str, action: str | None, candidates: list[dict[str, Any]], **more: Any) -> NewDecisionRecord:
    attributes = {"threshold": 0.7, "matched_heuristic_id": more.pop("fired", None)} | more.pop("attributes", {})
    return NewDecisionRecord(
        id="d1",
        tenant="t",
        kind="executive",
        path=path,
        action=action,
        confidence=more.pop("confidence", None),
        inputs={"event_text": "the living room is too cold", "base_threshold": 0.7, "candidates": candidates},
        attributes=attributes,
        **more,
    )


COLD = {"heuristic_id": "h1", "condition_text": "the room is cold", "suggested_action": "raise the thermostat",
        "confidence": 0.85, "similarity": 0.912}  # fmt: skip
CURTAINS = {"heuristic_id": "h2", "condition_text": "the room is cold at night",
            "suggested_action": "close the curtains", "confidence": 0.5, "similarity": 0.8}  # fmt: skip


def test_a_fired_heuristic_says_its_confidence_similarity_and_what_it_won_over() -> None:
    record = _record("heuristic", "raise the thermostat", [COLD, CURTAINS], fired="h1", confidence=0.85)
    assert explain(record) == (
        "fired 'raise the thermostat' (confidence 0.85, similarity 0.91) for 'the room is cold' over 1 weaker candidate"
    )


def test_the_emergency_fast_path_says_so() -> None:
    record = _record("heuristic", "raise the thermostat", [COLD], fired="h1", reason="emergency_fast_path")
    record.inputs["salience"] = {"threat": 0.95}
    assert explain(record).startswith("emergency fast path (threat 0.95): fired 'raise the thermostat'")


def test_a_tier_says_its_threshold() -> None:
    record = _record(
        "heuristic", "raise the thermostat", [COLD], fired="h1", attributes={"tier": "immediate", "threshold": 0.43}
    )
    assert explain(record).endswith("for 'the room is cold', immediate tier at threshold 0.43")


def test_nothing_done_says_why_and_the_best_candidate_below_the_threshold() -> None:
    record = _record("rejected", None, [CURTAINS], reason="llm_unavailable")
    assert explain(record) == (
        "did nothing: no heuristic was confident enough: the best, 'the room is cold at night', "
        "at confidence 0.50 < 0.70, and no LLM is configured"
    )
    assert explain(_record("rejected", None, [], reason="llm_unavailable")) == (
        "did nothing: no heuristic matched, and no LLM is configured"  # not "confident enough" (the trial)
    )
    assert explain(_record("rejected", None, [], reason="not_immediate")) == (
        "did nothing: no heuristic matched, and the event is not immediate, so the LLM was not asked"
    )


def test_a_confident_heuristic_not_fired_is_not_said_to_be_below_the_threshold() -> None:
    """The trial: under always_llm with no LLM, "at confidence 0.80 < 0.70" was said of the best."""
    baseline = _record("rejected", None, [COLD], reason="llm_unavailable", strategy="always_llm")
    assert explain(baseline) == (
        "did nothing: the strategy always_llm leaves every event to the LLM: its best candidate, "
        "'the room is cold' (confidence 0.85), was not fired, and no LLM is configured"
    )
    other = _record("rejected", None, [COLD], reason="llm_unavailable", strategy="heuristic_first")
    assert "at confidence 0.85 ≥ 0.70, was not fired" in explain(other) and "<" not in explain(other)


def test_nothing_done_says_which_of_the_caller_s_candidates_were_set_aside_and_the_rule_s_own_words() -> None:
    aside = [{"heuristic_id": "h-cold", "why": "opposite: cold/warm, similarity 0.92"}]
    record = _record("rejected", None, [], reason="llm_unavailable", attributes={"candidates_set_aside": aside})
    assert explain(record) == (
        "did nothing: no heuristic applies; the caller's candidates set aside: "
        "h-cold (opposite: cold/warm, similarity 0.92), and no LLM is configured"
    )
    detail = "threat 0.95: no heuristic answers it and no LLM is configured; a person should look at it now"
    emergency = _record("rejected", None, [], reason="emergency_unmatched", attributes={"detail": detail})
    assert explain(emergency) == f"did nothing: {detail}"


def test_the_llm_path_says_the_model_and_its_answer() -> None:
    record = _record("llm", "open a window", [CURTAINS], model="gpt-x")
    assert explain(record) == (
        "asked the LLM (gpt-x): 'open a window'; no heuristic was confident enough: "
        "the best, 'the room is cold at night', at confidence 0.50 < 0.70"
    )


def test_a_record_too_old_to_word_says_what_it_has() -> None:
    record = _record("heuristic", "raise the thermostat", [COLD], fired="h1")
    odd = record.model_copy(update={"inputs": {"candidates": "not a list"}})
    assert explain(odd).startswith("fired 'raise the thermostat'")  # no candidate to cite: still a sentence
