"""The rule judge: seed 003's four scenarios from structured features, and its invariants."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from phronesis.admission.judgement import Candidate, Incoming
from phronesis.admission.rule_judge import RuleJudge, step_at
from phronesis.admission.task_values import kinship
from tests.admission.conftest import candidate, incoming

judge = RuleJudge()


def test_identical_structure_at_the_duplicate_threshold_is_not() -> None:
    verdict = judge.judge(incoming(), [candidate(similarity=0.98)], duplicate_threshold=0.95)
    assert (verdict.decision, verdict.target, verdict.rule, verdict.judge) == ("NOT", "old", "near_duplicate", "rules")


def test_same_task_old_failed_new_succeeded_is_replace() -> None:
    verdict = judge.judge(
        incoming("success"), [candidate(similarity=0.92, outcome="failure")], duplicate_threshold=0.95
    )
    assert (verdict.decision, verdict.target, verdict.rule) == ("REPLACE", "old", "better_outcome")


def test_a_partial_success_is_replaced_by_a_success_and_replaces_a_failure() -> None:
    assert (
        judge.judge(incoming("success"), [candidate(outcome="partial")], duplicate_threshold=0.95).decision == "REPLACE"
    )
    assert (
        judge.judge(incoming("partial"), [candidate(outcome="failure")], duplicate_threshold=0.95).decision == "REPLACE"
    )


def test_both_succeeded_with_different_references_is_merge() -> None:
    verdict = judge.judge(incoming(refs=("B",)), [candidate(similarity=0.88, refs=("A",))], duplicate_threshold=0.95)
    assert (verdict.decision, verdict.target, verdict.rule) == ("MERGE", "old", "complementary")


def test_a_better_outcome_for_another_task_is_never_replace() -> None:
    """Graphiti #1728: a semantic neighbour of another task is not replaced."""
    verdict = judge.judge(
        incoming("success"), [candidate(similarity=0.93, outcome="failure", task_id="t2")], duplicate_threshold=0.95
    )
    assert verdict.decision == "ADD"
    assert verdict.rule == "different_task"


def test_a_worse_run_with_nothing_new_is_not_and_with_new_material_is_merge() -> None:
    worse = judge.judge(incoming("failure"), [candidate(outcome="success")], duplicate_threshold=0.95)
    assert (worse.decision, worse.rule) == ("NOT", "worse_and_nothing_new")
    richer = judge.judge(
        incoming("failure", arts=("log.txt",)), [candidate(outcome="success")], duplicate_threshold=0.95
    )
    assert (richer.decision, richer.rule) == ("MERGE", "complementary_worse")


def test_the_better_version_is_preferred_over_a_closer_merge_candidate() -> None:
    verdict = judge.judge(
        incoming("success", refs=("B",)),
        [candidate("close", 0.94, "success", refs=("A",)), candidate("failed", 0.9, "failure", refs=("B",))],
        duplicate_threshold=0.95,
    )
    assert (verdict.decision, verdict.target) == ("REPLACE", "failed")


outcomes = st.sampled_from(["success", "failure", "partial"])
refs = st.frozensets(st.sampled_from(["A", "B", "C"]), max_size=3).map(tuple)


@given(
    new_outcome=outcomes,
    new_refs=refs,
    pool=st.lists(
        st.tuples(st.floats(0.7, 1.0), outcomes, st.sampled_from(["t1", "t2"]), refs), min_size=1, max_size=3
    ),
    threshold=st.floats(0.7, 1.0),
)
def test_invariants(new_outcome: str, new_refs: tuple[str, ...], pool: list, threshold: float) -> None:  # type: ignore[type-arg]
    candidates = sorted(
        (candidate(f"c{i}", sim, out, task_id=task, refs=r) for i, (sim, out, task, r) in enumerate(pool)),
        key=lambda c: -c.similarity,
    )
    verdict = judge.judge(incoming(new_outcome, refs=new_refs), candidates, duplicate_threshold=threshold)
    by_id = {c.run_id: c for c in candidates}
    if verdict.decision in ("REPLACE", "MERGE"):
        assert verdict.target in by_id  # never an invented id
    if verdict.decision == "REPLACE":
        target = by_id[verdict.target]  # type: ignore[index]
        assert target.same_task and target.rank < incoming(new_outcome).rank  # only a worse run of the same task
    if verdict.decision == "ADD":
        assert verdict.target is None


@given(
    new_outcome=outcomes,
    new_refs=refs,
    pool=st.lists(
        st.tuples(
            st.sampled_from([0.7, 0.8, 0.9, 0.95, 0.99, 1.0]) | st.floats(0.5, 1.0),
            outcomes,
            st.sampled_from(["t1", "t2"]),
            refs,
            st.booleans(),
            st.sampled_from([None, None, True, False]),
        ),
        min_size=1,
        max_size=4,
    ),
    threshold=st.sampled_from([0.0, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0]) | st.floats(0.0, 1.0),
)
def test_the_verdict_by_threshold_is_the_judges_at_every_threshold(
    new_outcome: str,
    new_refs: tuple[str, ...],
    pool: list,  # type: ignore[type-arg]
    threshold: float,
) -> None:
    """What a replay of the duplicate threshold reads (issue 25): the few judgements
    ``by_threshold`` records give, at any threshold, the judge's own verdict, ties at a
    candidate's similarity and pair-judged candidates included."""
    candidates = sorted(
        (
            replace(candidate(f"c{i}", sim, out, task_id=task, refs=r), same_values=values, duplicate=pair)
            for i, (sim, out, task, r, values, pair) in enumerate(pool)
        ),
        key=lambda c: -c.similarity,
    )
    run = incoming(new_outcome, refs=new_refs)
    verdict = judge.judge(run, candidates, duplicate_threshold=threshold)
    step = step_at(judge.by_threshold(run, candidates), threshold)
    assert (step.decision, step.rule, step.target) == (verdict.decision, verdict.rule, verdict.target)


def test_a_near_duplicate_of_another_task_naming_other_values_is_add() -> None:
    """Issue 23: 228 of 300 different invoice runs were merged at cosine >= 0.95 (and one with the
    same structure would have been dropped as redundant). Another task naming other values is
    another task, whatever the embedding says."""
    run = replace(incoming(), task="Process invoice 29 for customer 44", task_id="t9")
    other = stored_task("Process invoice 26 for customer 23", run)
    verdict = judge.judge(run, [other], duplicate_threshold=0.95)
    assert (verdict.decision, verdict.rule) == ("ADD", "other_values")
    assert "23, 26, 29, 44" in verdict.reason
    same = stored_task("process invoice 29 for customer 44", run)
    assert judge.judge(run, [same], duplicate_threshold=0.95).rule == "near_duplicate_other_task"  # kept, grouped


def test_a_run_is_never_dropped_on_another_tasks_account() -> None:
    """A fresh-clone trial: "Turn off the kitchen lights" was NOT as a duplicate of "Turn on the
    kitchen lights" (0.966, the same structure). Another task's near-duplicate is merged (both
    kept, grouped), never a NOT; and the opposite task is not even merged (issue 46: "Disable
    two-factor authentication …" merged into "Enable …" at 0.97, and search showed only one)."""
    run = replace(incoming(), task="Back up the kitchen database", task_id="backup")
    said_again = stored_task("Back up the kitchen's database", run)
    verdict = judge.judge(run, [said_again], duplicate_threshold=0.95)
    assert (verdict.decision, verdict.rule) == ("MERGE", "near_duplicate_other_task")
    for new, old in [
        ("Turn off the kitchen lights", "Turn on the kitchen lights"),
        ("Disable two-factor authentication for the admin account", "Enable two-factor authentication for the admin account"),  # noqa: E501
    ]:
        run = replace(incoming(), task=new, task_id="new")
        verdict = judge.judge(run, [stored_task(old, run)], duplicate_threshold=0.95)
        assert (verdict.decision, verdict.rule) == ("ADD", "opposite_task"), new


def stored_task(task: str, run: Incoming) -> Candidate:
    """A stored run of another task, as the planner sees it against ``run``."""
    return replace(candidate(similarity=0.98, task_id="t2"), task=task, **kinship(task, run.task))
