"""Was an admission decision right? Feedback on it, and the labelled pairs it teaches (seed
003's roadmap: "user feedback on decision quality, auto-tuned thresholds").

A rating is kept on the decision's record like a routing rating (``DecisionRecordRepository.rate``:
``outcome`` correct or incorrect, the last rating wins). What it teaches is the one judgement
calibration fits, "does the new run say what the stored one says" (``pair_judge``, the
duplicate threshold), as a labelled pair: the run's summary and the summary of the run it was
decided against (its target, else the most similar run). The pair is kept with the rating, so
it still teaches after either run is deleted. The decision it should have been (the one taken
when the rating says right) labels the pair:

- NOT → a duplicate: the run added nothing the stored one did not say;
- ADD → not a duplicate;
- MERGE with a run of another task → a duplicate (rule 4 merges near-duplicates naming the same
  values); MERGE where the decision was a same-task NOT → not a duplicate (both approaches are
  worth keeping); a same-task MERGE rated right says nothing about the texts (the rule judge
  also merges same-task runs that are no duplicates), so it teaches nothing;
- REPLACE → nothing: it is decided by outcomes, not by what the texts say.

``phronesis admission calibrate --from-feedback`` refits the threshold and the pair judge on
these pairs (with a labelled file's, if one is given). The rule judge turns "not a duplicate"
of a same-task run into MERGE rather than ADD: a run of the same task is kept in its group.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, StrictBool, StringConstraints, ValidationInfo, field_validator

from phronesis.admission.memory_decisions import MemoryDecisionRepository
from phronesis.admission.models import AdmissionDecision, MemoryDecision
from phronesis.admission.pairs import LabelledPair
from phronesis.admission.run_repository import RunRepository
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.clock import Clock
from phronesis.exceptions import InvalidInputError
from phronesis.schema import Schema

__all__ = ["AdmissionFeedback", "AdmissionFeedbackIn", "AdmissionFeedbackStore", "TaughtPair", "taught_duplicate"]

KEY = "admission_feedback"


class AdmissionFeedbackIn(Schema):
    model_config = ConfigDict(extra="forbid")

    correct: StrictBool
    """Whether the decision was right: a JSON true or false ("yes" or 1 is refused)."""
    expected_decision: AdmissionDecision | None = None
    """What it should have been (only when not correct)."""
    note: Annotated[str, StringConstraints(max_length=2000)] | None = None
    """Free text kept with the rating, at most 2000 characters; nothing learns from it."""

    @field_validator("expected_decision")
    @classmethod
    def _only_when_wrong(cls, value: AdmissionDecision | None, info: ValidationInfo) -> AdmissionDecision | None:
        if value is not None and info.data.get("correct") is True:
            raise ValueError("a correct decision has no expected_decision")
        return value


class TaughtPair(Schema):
    """The labelled pair a rating teaches calibration."""

    duplicate: bool
    """The label: true when the rated run says what the other run says (a duplicate), false when it does not."""
    run_id: str
    """The run the decision was made against."""
    first: str
    """The summary of the rated decision's run."""
    second: str
    """The summary of the run it was decided against (run_id)."""


class AdmissionFeedback(Schema):
    decision_id: str
    """The admission decision that was rated."""
    decision: AdmissionDecision
    """What that decision had decided: ADD, NOT, REPLACE or MERGE."""
    outcome: str
    """``correct`` or ``incorrect``."""
    expected_decision: AdmissionDecision | None
    """What the rater said it should have been; None when rated correct, or when not said."""
    note: str | None
    """The rater's note, as sent."""
    teaches: TaughtPair | None
    """The pair ``admission calibrate --from-feedback`` learns from; None where the rating says
    nothing about whether the texts are duplicates (see the module docstring)."""


def taught_duplicate(decided: AdmissionDecision, right: AdmissionDecision, *, same_task: bool) -> bool | None:
    """What a rating says about "is the run a duplicate of the one it was decided against"
    (the module docstring's table); None: nothing."""
    if right == "NOT":
        return True
    if right == "ADD":
        return False
    if right == "MERGE":
        if not same_task:
            return True
        return False if decided == "NOT" else None
    return None


class AdmissionFeedbackStore:
    def __init__(
        self,
        memory_decisions: MemoryDecisionRepository,
        runs: RunRepository,
        decisions: DecisionRecordRepository,
        clock: Clock,
    ) -> None:
        self._memory_decisions = memory_decisions
        self._runs = runs
        self._decisions = decisions
        self._clock = clock

    async def rate(self, tenant: str, decision_id: str, rating: AdmissionFeedbackIn) -> AdmissionFeedback:
        """``feedback.rates.Rates``: record the rating on the decision's record; 404 unless it is an
        admission decision."""
        body = rating
        decision = await self._memory_decisions.get(tenant, decision_id)
        if body.expected_decision == decision.decision:
            raise InvalidInputError(
                "expected_decision", f"{decision.decision} is what it decided: send correct true instead"
            )
        right = decision.decision if body.correct else body.expected_decision
        pair = None if right is None else await self._pair(tenant, decision, right)
        feedback: dict[str, Any] = {
            "correct": body.correct,
            "expected_decision": body.expected_decision,
            "note": body.note,
            "pair": None if pair is None else pair.model_dump(),
            "at": self._clock.now().isoformat(),
        }
        await self._decisions.rate(tenant, decision_id, KEY, feedback, correct=body.correct)
        return AdmissionFeedback(
            decision_id=decision_id,
            decision=decision.decision,
            outcome="correct" if body.correct else "incorrect",
            expected_decision=body.expected_decision,
            note=body.note,
            teaches=pair,
        )

    async def _pair(self, tenant: str, decision: MemoryDecision, right: AdmissionDecision) -> TaughtPair | None:
        against = decision.target_run_id or (decision.similar_runs[0].run_id if decision.similar_runs else None)
        if against is None:
            return None  # nothing was similar: nothing to compare
        brief = next((s for s in decision.similar_runs if s.run_id == against), None)
        stored = await self._runs.get_many(tenant, [decision.run_id, against])
        first: str | None
        if decision.run_id in stored:
            first = stored[decision.run_id].summary
        else:  # a NOT's run was never stored (or was deleted): its summary is on the decision record
            first = (await self._decisions.get(tenant, decision.id)).inputs.get("summary")
        second = stored[against].summary if against in stored else (brief.summary if brief else None)
        if against in stored and decision.run_id in stored:
            same_task = stored[against].task_id == stored[decision.run_id].task_id
        else:
            same_task = brief.same_task if brief is not None else True
        duplicate = taught_duplicate(decision.decision, right, same_task=same_task)
        if duplicate is None or not first or not second:
            return None
        return TaughtPair(duplicate=duplicate, run_id=against, first=str(first), second=str(second))

    async def pairs(self, tenant: str) -> list[LabelledPair]:
        """The pairs the tenant's ratings teach, oldest first."""
        taught = []
        for rated in await self._decisions.rated(tenant, "admission", KEY):
            pair = rated.feedback.get("pair")
            if isinstance(pair, dict):
                taught.append(LabelledPair(bool(pair["duplicate"]), str(pair["first"]), str(pair["second"])))
        return taught
