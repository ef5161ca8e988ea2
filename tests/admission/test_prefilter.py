"""Stage 1 (seed 003): the rules that decide without a judge, and what they pass on."""

from __future__ import annotations

from phronesis.admission.judgement import Verdict
from phronesis.admission.prefilter import Screening, prefilter
from tests.admission.conftest import candidate, incoming


def screen(nearest, exact=None, low=0.7, dup=0.95):  # type: ignore[no-untyped-def]
    return prefilter(incoming(), nearest, exact_duplicate_of=exact, low_similarity=low, duplicate_threshold=dup)


def test_an_exact_duplicate_is_not_without_a_judge() -> None:
    verdict = screen([candidate()], exact="stored-1")
    assert isinstance(verdict, Verdict)
    assert (verdict.decision, verdict.target, verdict.rule, verdict.stage) == (
        "NOT",
        "stored-1",
        "exact_duplicate",
        "prefilter",
    )


def test_no_similar_runs_is_add() -> None:
    verdict = screen([])
    assert isinstance(verdict, Verdict)
    assert (verdict.decision, verdict.rule, verdict.reason) == (
        "ADD",
        "no_similar_runs",
        "No similar runs found in memory",
    )


def test_best_similarity_below_the_low_threshold_is_add_and_says_so() -> None:
    verdict = screen([candidate(similarity=0.3, task_id="t2")])
    assert isinstance(verdict, Verdict)
    assert (verdict.decision, verdict.rule) == ("ADD", "below_low_similarity")
    assert "0.30" in verdict.reason and "0.70" in verdict.reason


def test_a_run_of_the_same_task_is_judged_whatever_its_similarity() -> None:
    """A failure's trace and the success's embed at 0.67: the seed's rule ADDed the success beside
    the failure (a fresh-clone trial); the judge REPLACEs it."""
    screened = screen([candidate("other", 0.65, task_id="t2"), candidate("mine", 0.4)])
    assert isinstance(screened, Screening)
    assert [c.run_id for c in screened.candidates] == ["mine"] and not screened.likely_duplicate


def test_the_low_threshold_is_configurable() -> None:
    assert isinstance(screen([candidate(similarity=0.5)], low=0.4), Screening)


def test_candidates_below_the_threshold_are_not_passed_on() -> None:
    screened = screen([candidate("a", 0.9), candidate("b", 0.6, task_id="t2")])
    assert isinstance(screened, Screening)
    assert [c.run_id for c in screened.candidates] == ["a"]


def test_very_high_similarity_with_the_same_structure_is_flagged_not_decided() -> None:
    screened = screen([candidate(similarity=0.97)])
    assert isinstance(screened, Screening) and screened.likely_duplicate
    other_outcome = screen([candidate(similarity=0.97, outcome="failure")])
    assert isinstance(other_outcome, Screening) and not other_outcome.likely_duplicate
    lower = screen([candidate(similarity=0.9)])
    assert isinstance(lower, Screening) and not lower.likely_duplicate
