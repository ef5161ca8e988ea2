"""An admission decision in words, from its record (issue 52)."""

from __future__ import annotations

from typing import Any

from phronesis.audit.models import NewDecisionRecord
from phronesis.explanations import explain


def _record(action: str, rule: str, **attributes: Any) -> NewDecisionRecord:
    return NewDecisionRecord(
        id="d1", tenant="t", kind="admission", path="judge", action=action, reason=attributes.pop("reason", None),
        inputs={"task": "Generate the invoice schema", "outcome": "success"}, attributes={"rule": rule, **attributes},
    )  # fmt: skip


def test_each_verdict_says_the_run_it_is_about_and_the_rule() -> None:
    earlier = [{"run_id": "r0", "outcome": "failure", "similarity": 0.57}]
    assert explain(_record("REPLACE", "better_outcome", target_run_id="r0", similar_runs=earlier)) == (
        "REPLACE run r0 for 'Generate the invoice schema': same task, the earlier run was a failure, this one a success"
    )
    assert explain(_record("MERGE", "complementary", target_run_id="r0", similarity=0.846)) == (
        "MERGE into run r0 for 'Generate the invoice schema': same task and outcome, "
        "different references or artifacts (similarity 0.85)"
    )
    assert (
        explain(_record("NOT", "exact_duplicate", target_run_id="r0")) == "NOT: the same run is already stored (run r0)"
    )
    assert explain(_record("ADD", "no_similar_runs")) == "ADD 'Generate the invoice schema': no similar run in memory"
    assert explain(_record("ADD", "llm", reason="a different task")) == (
        "ADD 'Generate the invoice schema': a different task"
    )
