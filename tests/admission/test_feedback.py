"""Feedback on admission decisions (``admission.feedback``): a rating on the decision's record,
the labelled pair it teaches, and ``calibrate`` refitting the duplicate threshold from it."""

from __future__ import annotations

from typing import Any

import pytest

from phronesis.admission.feedback import AdmissionFeedbackIn, taught_duplicate
from phronesis.admission.pairs import LabelledPair
from phronesis.engine import Engine
from phronesis.exceptions import InvalidInputError, NotFoundError
from tests.engines import EngineFactory

T = "default"
SAID = "The agent read the orders table and wrote the schema file."
CLOSE = "The agent read the orders table and wrote a schema file."
"""Two traces of one task: near-duplicates to the sentence model, different to the user."""


@pytest.fixture
async def engine(make_engine: EngineFactory) -> Engine:
    built: Engine = await make_engine()
    return built


async def admit(engine: Engine, summary: str, **fields: Any):  # type: ignore[no-untyped-def]
    return await engine.admit_run(task="Generate schema", outcome="success", summary=summary, **fields)


async def similarity(engine: Engine, a: str, b: str) -> float:
    vectors = await engine.embedder.embed([a, b])
    return float(vectors[0] @ vectors[1])


@pytest.mark.parametrize(
    ("decided", "right", "same_task", "taught"),
    [
        ("NOT", "NOT", True, True),
        ("MERGE", "NOT", True, True),
        ("NOT", "ADD", True, False),
        ("ADD", "ADD", False, False),
        ("ADD", "MERGE", False, True),  # another task's run the user calls the same thing
        ("MERGE", "MERGE", False, True),
        ("NOT", "MERGE", True, False),  # both traces are worth keeping: not a duplicate
        ("MERGE", "MERGE", True, None),  # the rules merge same-task non-duplicates too: says nothing
        ("ADD", "REPLACE", True, None),  # outcomes decide a REPLACE, not the texts
        ("REPLACE", "REPLACE", True, None),
    ],
)
def test_what_a_rating_teaches(decided: Any, right: Any, same_task: bool, taught: bool | None) -> None:
    assert taught_duplicate(decided, right, same_task=same_task) is taught


def test_a_correct_decision_has_no_expected_one() -> None:
    with pytest.raises(ValueError, match="no expected_decision"):
        AdmissionFeedbackIn(correct=True, expected_decision="ADD")


async def test_a_rating_is_kept_on_the_record_and_the_last_one_wins(engine: Engine) -> None:
    await engine.admission.calibrations.save(T, await similarity(engine, SAID, CLOSE) - 0.01, {})
    first = await admit(engine, SAID)
    second = await admit(engine, CLOSE)
    assert (second.decision, second.rule, second.target_run_id) == ("NOT", "near_duplicate", first.run_id)

    right = await engine.admission.feedback.rate(T, second.decision_id, AdmissionFeedbackIn(correct=True))
    assert right.outcome == "correct" and right.teaches is not None and right.teaches.duplicate
    wrong = await engine.admission.feedback.rate(
        T, second.decision_id, AdmissionFeedbackIn(correct=False, expected_decision="MERGE", note="another approach")
    )
    assert wrong.teaches is not None
    assert (wrong.teaches.duplicate, wrong.teaches.run_id) == (False, first.run_id)
    assert (wrong.teaches.first, wrong.teaches.second) == (CLOSE, SAID)  # the NOT run was never stored
    record = await engine.decisions.get(T, second.decision_id)
    assert record.outcome == "incorrect" and record.attributes["admission_feedback"]["note"] == "another approach"
    assert await engine.admission.feedback.pairs(T) == [LabelledPair(False, CLOSE, SAID)]  # the last rating only


async def test_a_rating_names_what_is_wrong_with_it(engine: Engine) -> None:
    added = await admit(engine, SAID)
    with pytest.raises(InvalidInputError) as same:
        await engine.admission.feedback.rate(
            T, added.decision_id, AdmissionFeedbackIn(correct=False, expected_decision="ADD")
        )
    assert same.value.field == "expected_decision"
    with pytest.raises(NotFoundError):
        await engine.admission.feedback.rate(T, "no-such-decision", AdmissionFeedbackIn(correct=True))
    with pytest.raises(NotFoundError):  # another tenant's decision is not there
        await engine.admission.feedback.rate("other", added.decision_id, AdmissionFeedbackIn(correct=True))
    undone = await engine.admission.undo(T, added.decision_id)
    with pytest.raises(NotFoundError):  # an undo is not an admission decision
        await engine.admission.feedback.rate(T, undone.undo_id, AdmissionFeedbackIn(correct=True))
    nothing = await engine.admission.feedback.rate(T, added.decision_id, AdmissionFeedbackIn(correct=True))
    assert nothing.teaches is None  # nothing was similar to the first run: no pair


async def test_feedback_refits_the_threshold_and_flips_the_next_decision(engine: Engine) -> None:
    """Calibrated on a file, two near-identical traces are duplicates (NOT); the user says the
    second was another approach; refitted with that feedback, the next such trace is kept (MERGE)."""
    cosine = await similarity(engine, SAID, CLOSE)
    far = "Translate the onboarding guide into French for the new hires."
    pairs = [
        LabelledPair(True, SAID, SAID.replace("agent", "assistant")),
        LabelledPair(True, CLOSE, CLOSE.upper()),
        LabelledPair(False, SAID, far),
        LabelledPair(False, CLOSE, "Send the weekly invoice summary to the finance team."),
    ]
    fitted = await engine.admission.calibrate(T, pairs)
    assert fitted["threshold"] < cosine and fitted["feedback_pairs"] == 0 and fitted["pair_judge"] is None
    first = await admit(engine, SAID, agent_id="etl")
    second = await admit(engine, CLOSE, agent_id="etl")
    assert (second.decision, second.target_run_id) == ("NOT", first.run_id)
    await engine.admission.feedback.rate(
        T, second.decision_id, AdmissionFeedbackIn(correct=False, expected_decision="MERGE")
    )
    with_feedback = await engine.admission.calibrate(T, pairs, from_feedback=True, feedback_weight=3)
    assert with_feedback["feedback_pairs"] == 1 and with_feedback["feedback_weight"] == 3
    assert cosine < with_feedback["threshold"] <= 1.0
    await admit(engine, SAID, agent_id="etl3")
    again = await admit(engine, CLOSE, agent_id="etl3")
    assert (again.decision, again.rule) == ("MERGE", "complementary")


async def test_calibrating_needs_pairs_from_somewhere(engine: Engine) -> None:
    with pytest.raises(InvalidInputError, match="rate decisions first"):
        await engine.admission.calibrate(T, [], from_feedback=True)
    with pytest.raises(InvalidInputError) as weight:
        await engine.admission.calibrate(T, [LabelledPair(True, SAID, CLOSE)], from_feedback=True, feedback_weight=0)
    assert weight.value.field == "feedback_weight"


async def test_a_threshold_fitted_below_the_low_similarity_is_raised_to_it(engine: Engine) -> None:
    """Below the low similarity the pre-filter ADDs other tasks' runs before any judge: a lower
    duplicate threshold would only drop runs of the same task (a fresh-clone trial fitted 0.64)."""
    pairs = [  # duplicates share half their words: far below 0.7 to any embedder
        LabelledPair(True, "read orders wrote schema", "read orders built tables"),
        LabelledPair(True, "booked the demo call", "booked the sales meeting"),
        LabelledPair(False, "read orders wrote schema", "translated guide into french"),
        LabelledPair(False, "booked the demo call", "stock market fell sharply"),
    ]
    fitted = await engine.admission.calibrate(T, pairs)
    low = engine.admission.settings.low_similarity
    assert fitted["threshold"] == low and fitted["raised_to_low_similarity"]["fitted"] < low
    assert "fitted on 4 pairs" in fitted["warning"]
    assert await engine.admission.calibrations.duplicate_threshold(T) == low
