"""Undo keywords on word boundaries, negation-aware (ORIGINS bug 10)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.learning.undo_detection import UndoDetector

SEED_KEYWORDS = ("undo", "revert", "cancel", "rollback", "nevermind", "never mind")


@pytest.fixture
def detector() -> UndoDetector:
    return UndoDetector(SEED_KEYWORDS)


@pytest.mark.parametrize(
    "text",
    [
        "undo",
        "Undo that please",
        "no, undo it",
        "revert the thermostat",
        "I cancelled it",
        "never mind",
        "Nevermind!",
        "rollback now",
        "please don't worry. Undo it",
        "ok but cancel it",
    ],
)
def test_undo_requests_are_undos(detector: UndoDetector, text: str) -> None:
    assert detector.matches(text)


@pytest.mark.parametrize(
    "text",
    [
        "what is your cancellation policy?",  # GLADyS: "cancel" in "cancellation" undid every fire
        "don't undo that",
        "do not revert it",
        "no need to cancel",
        "you shouldn’t cancel the meeting",
        "the revertible flag",
        "turn on the lights",
        "",
    ],
)
def test_other_text_is_not(detector: UndoDetector, text: str) -> None:
    assert not detector.matches(text)


@given(st.text(alphabet=st.sampled_from("abdfghjkpqswxyz ,."), max_size=60))
def test_text_without_any_keyword_letters_never_matches(text: str) -> None:
    # none of the keywords can be spelled without c, e, i, l, m, n, o, r, t, u, v
    assert not UndoDetector(SEED_KEYWORDS).matches(text)


def test_a_detector_needs_keywords() -> None:
    with pytest.raises(ValueError):
        UndoDetector([" ", ""])
