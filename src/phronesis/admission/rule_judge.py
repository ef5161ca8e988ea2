"""The judge without an LLM: seed 003's four scenarios from structured features.

Rules, first match wins (candidates are best-first):

1. a candidate of the same task with the same structure at or above the duplicate threshold → NOT
   (scenario 2). A run is never dropped on another task's account: "Turn off the kitchen lights"
   embeds at 0.97 with "Turn on …", and a threshold calibrated on paraphrases (MRPC: 0.68) would
   take "Open the garage door" for "Close the garage door";
2. a candidate of the same task with a worse outcome → REPLACE it (scenario 3). REPLACE is
   structural, never on similarity alone: Graphiti #1728 retired 41% of its facts that way;
3. the best candidate of the same task: the same outcome → MERGE (scenario 4, complementary
   approaches); a worse outcome that brings new references or artifacts → MERGE, the stored
   run stays canonical; a worse outcome with nothing new → NOT;
4. a near-duplicate of another task's run (≥ the duplicate threshold) whose task names the same
   values → MERGE; naming other values ("invoice 29" / "invoice 26") → ADD (``other_values``);
   the opposite task ("Disable …" / "Enable …", ``phronesis.contrast``) → ADD (``opposite_task``);
5. otherwise the similar runs are other tasks' → ADD (scenario 1 past the pre-filter).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from phronesis.admission.judgement import Candidate, Incoming, Verdict, is_duplicate, same_structure
from phronesis.admission.models import AdmissionDecision
from phronesis.admission.task_values import task_values

__all__ = ["RuleJudge", "Step", "step_at"]


@dataclass(frozen=True, slots=True)
class Step:
    """The rule judge's verdict for every duplicate threshold above ``above`` (and at most the
    previous step's): one piece of ``RuleJudge.by_threshold``."""

    above: float
    decision: AdmissionDecision
    rule: str | None
    target: str | None

    def record(self) -> dict[str, Any]:
        return {"above": self.above, "decision": self.decision, "rule": self.rule, "target": self.target}


def step_at(steps: Sequence[Step], threshold: float) -> Step:
    """The verdict ``by_threshold``'s steps give at ``threshold``."""
    return next(step for step in steps if threshold > step.above)


def _new_material(run: Incoming, candidate: Candidate) -> bool:
    return bool(run.references - candidate.references or run.artifacts - candidate.artifacts)


def _why_duplicate(candidate: Candidate, duplicate_threshold: float) -> str:
    """What made it a duplicate: the tenant's pair judge, or the (calibrated or configured) threshold."""
    if candidate.duplicate is not None:
        return "the tenant's pair judge calls it a duplicate"
    return f"at or above the duplicate threshold {duplicate_threshold:.2f}"


class RuleJudge:
    name = "rules"

    def by_threshold(self, run: Incoming, candidates: Sequence[Candidate]) -> tuple[Step, ...]:
        """This run's verdict at every duplicate threshold, the most demanding first. The verdict
        can change only where the threshold crosses a candidate's similarity (a candidate the
        pair judge decided ignores it), so one judgement per candidate is the whole function:
        the record keeps it, and a replay of the duplicate threshold reads the verdict any value
        would have given, from this judge itself (``replay.admission_duplicate``)."""
        cuts = sorted({c.similarity for c in candidates if c.duplicate is None}, reverse=True)
        # above each cut, judged where nothing at or below it counts: at the cut itself (≥)
        points = [(cuts[0] if cuts else -1.0, math.inf)]
        points += [(cuts[k + 1] if k + 1 < len(cuts) else -1.0, cut) for k, cut in enumerate(cuts)]
        steps: list[Step] = []
        for above, at in points:
            verdict = self.judge(run, candidates, duplicate_threshold=at)
            step = Step(above, verdict.decision, verdict.rule, verdict.target)
            if steps and (steps[-1].decision, steps[-1].rule, steps[-1].target) == (
                step.decision,
                step.rule,
                step.target,
            ):
                steps[-1] = step  # the same verdict further down: one step
            else:
                steps.append(step)
        return tuple(steps)

    def judge(self, run: Incoming, candidates: Sequence[Candidate], *, duplicate_threshold: float) -> Verdict:
        def verdict(decision: AdmissionDecision, target: Candidate | None, reason: str, rule: str) -> Verdict:
            return Verdict(decision, target.run_id if target else None, reason, "judge", rule, judge="rules")

        for c in candidates:
            if is_duplicate(c, duplicate_threshold) and same_structure(run, c) and c.same_task:
                return verdict(
                    "NOT",
                    c,
                    f"Redundant run, no new information: {c.run_id} has the same outcome, references and "
                    f"artifacts at similarity {c.similarity:.2f} ({_why_duplicate(c, duplicate_threshold)})",
                    "near_duplicate",
                )
        for c in candidates:
            if c.same_task and run.rank > c.rank:
                return verdict(
                    "REPLACE",
                    c,
                    f"New run ({run.outcome}) is a better version of {c.run_id} ({c.outcome}) for the same task",
                    "better_outcome",
                )
        same_task = [c for c in candidates if c.same_task]
        if same_task:
            c = same_task[0]
            if run.rank == c.rank:
                what = "different references or artifacts" if _new_material(run, c) else "a different trace"
                return verdict(
                    "MERGE",
                    c,
                    f"Complementary approaches, both valuable: same task and outcome as {c.run_id} with {what}",
                    "complementary",
                )
            if _new_material(run, c):
                return verdict(
                    "MERGE",
                    c,
                    f"Worse outcome than {c.run_id} ({c.outcome}) but new references or artifacts; "
                    f"{c.run_id} stays canonical",
                    "complementary_worse",
                )
            return verdict(
                "NOT",
                c,
                f"Adds little value: {c.run_id} already did this task with outcome {c.outcome}, "
                "and this run brings nothing new",
                "worse_and_nothing_new",
            )
        best = candidates[0] if candidates else None
        if best is not None and is_duplicate(best, duplicate_threshold) and best.same_values:
            return verdict(
                "MERGE",
                best,
                f"Near-duplicate of {best.run_id} (similarity {best.similarity:.2f}) with a different task "
                "text or structure",
                "near_duplicate_other_task",
            )
        if best is not None and is_duplicate(best, duplicate_threshold) and best.opposite is not None:
            return verdict(
                "ADD",
                None,
                f"The most similar run ({best.run_id}, {best.similarity:.3f}) is the opposite task ({best.opposite})",
                "opposite_task",
            )
        if best is not None and is_duplicate(best, duplicate_threshold):
            return verdict(
                "ADD",
                None,
                f"The most similar run ({best.run_id}, {best.similarity:.3f}) is another task: its task names "
                f"other values ({', '.join(sorted(task_values(best.task) ^ task_values(run.task))) or 'none'})",
                "other_values",
            )
        return verdict("ADD", None, "The similar runs are for other tasks", "different_task")
