"""An admission decision in words (seed 003), from its record: ADD, NOT, REPLACE or MERGE, the run it
is about, and the rule that decided."""

from __future__ import annotations

from typing import Any

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.words import quoted, score

__all__ = ["explain_admission"]


def explain_admission(record: NewDecisionRecord) -> str:
    a = record.attributes
    target = a.get("target_run_id")
    similar: list[dict[str, Any]] = list(a.get("similar_runs") or [])
    earlier = next((run for run in similar if run.get("run_id") == target), None)
    rule = a.get("rule")
    task = quoted(record.inputs.get("task"), 40)
    if rule == "no_similar_runs":
        return f"ADD {task}: no similar run in memory"
    if rule == "exact_duplicate":
        return f"NOT: the same run is already stored (run {target})"
    if rule == "better_outcome" and earlier is not None:
        return (
            f"REPLACE run {target} for {task}: same task, the earlier run was a {earlier.get('outcome')}, "
            f"this one a {record.inputs.get('outcome')}"
        )
    if rule == "complementary":
        return (
            f"MERGE into run {target} for {task}: same task and outcome, different references or artifacts "
            f"(similarity {score(a.get('similarity'))})"
        )
    near = f" (run {target}, similarity {score(a.get('similarity'))})" if target else ""
    return f"{record.action} {task}{near}: {record.reason or rule or 'no reason recorded'}"
