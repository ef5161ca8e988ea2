"""An executive decision in words (seed 000), from its record: which heuristic fired and why it won,
what the LLM was asked, or why nothing was done."""

from __future__ import annotations

from typing import Any

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.words import count, quoted, score

__all__ = ["explain_executive"]

_NOTHING = {
    "llm_unavailable": "no LLM is configured",
    "not_immediate": "the event is not immediate, so the LLM was not asked",
    "no_candidates": "the LLM was not asked",
}


def explain_executive(record: NewDecisionRecord) -> str:
    given = record.inputs.get("candidates")
    candidates: list[dict[str, Any]] = [c for c in given if isinstance(c, dict)] if isinstance(given, list) else []
    threshold = record.attributes.get("threshold", record.inputs.get("base_threshold"))
    if record.path == "heuristic":
        return _fired(record, candidates, threshold)
    below = _none_fired(record, candidates, threshold) + _set_aside(record)
    if record.path == "llm":
        model = f" ({record.model})" if record.model else ""
        return f"asked the LLM{model}: {quoted(record.action)}; {below}"
    if record.path == "fallback":
        answer = quoted(record.action) if record.action else "nothing"
        return f"fell back to {answer}: {record.reason or 'the LLM failed'}; {below}"
    detail = record.attributes.get("detail")
    if isinstance(detail, str) and detail:  # a rule's own words (the emergency rule's, F-24)
        return f"did nothing: {detail}"
    why = _NOTHING.get(record.reason or "", record.reason or "no answer")
    return f"did nothing: {below}, and {why}"


def _fired(record: NewDecisionRecord, candidates: list[dict[str, Any]], threshold: Any) -> str:
    """What fired, its numbers, the tier's threshold and what it won over."""
    fired_id = record.attributes.get("matched_heuristic_id")
    fired = next((c for c in candidates if c.get("heuristic_id") == fired_id), None)
    if fired is None:
        return f"fired {quoted(record.action)} (confidence {score(record.confidence)})"
    others = len(candidates) - 1
    said = (
        f"fired {quoted(record.action)} (confidence {score(fired.get('confidence'))}, "
        f"similarity {score(fired.get('similarity'))}) for {quoted(fired.get('condition_text'))}"
    )
    if record.attributes.get("tier"):
        said += f", {record.attributes['tier']} tier at threshold {score(threshold)}"
    said += f" over {count(others, 'weaker candidate')}" if others > 0 else ""
    if record.reason == "emergency_fast_path":  # F-24: before any strategy, at the emergency bar
        threat = (record.inputs.get("salience") or {}).get("threat")
        return f"emergency fast path (threat {score(threat)}): {said}"
    return said


def _none_fired(record: NewDecisionRecord, candidates: list[dict[str, Any]], threshold: Any) -> str:
    """Why no candidate fired: none matched, the strategy fires none, or the best was below the bar."""
    best = max(candidates, key=lambda c: c.get("confidence") or 0.0, default=None)
    if best is None:  # near ones set aside are said next: they were near, and do not apply
        return "no heuristic applies" if record.attributes.get("candidates_set_aside") else "no heuristic matched"
    if record.strategy == "always_llm":  # the seed's A/B baseline: candidates are the LLM's context only
        return (
            f"the strategy always_llm leaves every event to the LLM: its best candidate, "
            f"{quoted(best.get('condition_text'))} (confidence {score(best.get('confidence'))}), was not fired"
        )
    if isinstance(threshold, int | float) and (best.get("confidence") or 0.0) >= threshold:
        return (  # confident, and still not fired (a rule of the strategy's): said as it is, not as "below"
            f"the best heuristic, {quoted(best.get('condition_text'))}, at confidence "
            f"{score(best.get('confidence'))} ≥ {score(threshold)}, was not fired"
        )
    return (
        f"no heuristic was confident enough: the best, {quoted(best.get('condition_text'))}, at confidence "
        f"{score(best.get('confidence'))} < {score(threshold)}"
    )


def _set_aside(record: NewDecisionRecord) -> str:
    """The near heuristics memory set aside, and a caller's candidates set aside (GLADyS's), with why."""
    given = record.attributes.get("candidates_set_aside")
    aside = [c for c in given if isinstance(c, dict)] if isinstance(given, list) else []
    said = ""
    ours = [c for c in aside if c.get("action_text")]  # heuristic memory's, with what they would have done
    if ours:
        said += "; set aside: " + ", ".join(
            f"{quoted(c.get('action_text'))} for {quoted(c.get('condition_text'))} ({c.get('why')})" for c in ours
        )
    theirs = [c for c in aside if not c.get("action_text")]
    if theirs:
        said += "; the caller's candidates set aside: " + ", ".join(
            f"{c.get('heuristic_id')} ({c.get('why')})" for c in theirs
        )
    return said
