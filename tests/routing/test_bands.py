"""Seed 002's confidence bands as a pure rule (``routing.bands``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from phronesis.routing.bands import Bands, Evidence, settle, wants_more
from phronesis.routing.decisions import Decision

BANDS = Bands(high=0.75, low=0.5)


def _settle(decision: Decision, confidence: float, *, composite: float | None = None, **kw: object) -> str:
    evidence = Evidence(
        confidence,
        confidence if composite is None else composite,
        retrieved=bool(kw.pop("retrieved", decision is Decision.RETRIEVE)),
        empty=bool(kw.pop("empty", False)),
    )
    settled = settle(
        decision,
        evidence,
        kw.pop("bands", BANDS),  # type: ignore[arg-type]
        retrieved_more=bool(kw.pop("retrieved_more", False)),
        clarifications=int(kw.pop("clarifications", 0)),  # type: ignore[call-overload]
        max_clarifications=2,
    )
    return f"{settled.action.value} {settled.rule}"


def test_the_three_bands_of_seed_002() -> None:
    assert _settle(Decision.USE_TOOL, 0.9) == "USE_TOOL as_is"
    assert _settle(Decision.USE_TOOL, 0.6) == "CLARIFY confirm"
    assert _settle(Decision.USE_TOOL, 0.4) == "ESCALATE confidence_low"
    assert _settle(Decision.REASON_ONLY, 0.6) == "REASON_ONLY as_is"  # nothing to confirm


def test_a_retrieve_in_the_medium_band_answers_once_more_was_retrieved() -> None:
    assert _settle(Decision.RETRIEVE, 0.6, retrieved_more=True) == "RETRIEVE answered_after_more"
    assert _settle(Decision.RETRIEVE, 0.6) == "CLARIFY confirm"
    assert _settle(Decision.RETRIEVE, 0.9, empty=True) == "CLARIFY nothing_found"


def test_a_low_composite_escalates_a_confident_blend() -> None:
    assert _settle(Decision.REASON_ONLY, 0.8, composite=0.3) == "ESCALATE composite_low"


def test_a_question_after_two_in_a_row_is_a_hand_off() -> None:
    assert _settle(Decision.CLARIFY, 0.9, clarifications=1) == "CLARIFY clarify"
    assert _settle(Decision.CLARIFY, 0.9, clarifications=2) == "ESCALATE clarify"
    assert _settle(Decision.USE_TOOL, 0.6, clarifications=2) == "ESCALATE confirm"


def test_only_a_retrieve_that_searched_and_is_unsure_or_empty_searches_again() -> None:
    assert wants_more(Decision.RETRIEVE, Evidence(0.6, 0.6, True, False), BANDS)
    assert wants_more(Decision.RETRIEVE, Evidence(0.9, 0.9, True, True), BANDS)
    assert not wants_more(Decision.RETRIEVE, Evidence(0.9, 0.9, True, False), BANDS)
    assert not wants_more(Decision.RETRIEVE, Evidence(0.6, 0.6, False, False), BANDS)
    assert not wants_more(Decision.USE_TOOL, Evidence(0.6, 0.6, True, False), BANDS)


decisions = st.sampled_from([Decision.RETRIEVE, Decision.REASON_ONLY, Decision.USE_TOOL, Decision.CLARIFY])
unit = st.floats(0.0, 1.0)


@given(decisions, unit, unit, st.booleans(), st.booleans(), st.integers(0, 3), unit, unit, unit)
def test_a_higher_low_threshold_never_takes_a_turn_back_from_a_human(
    decision: Decision,
    confidence: float,
    composite: float,
    empty: bool,
    more: bool,
    clarifications: int,
    high: float,
    low: float,
    higher: float,
) -> None:
    """Raising the escalation threshold only adds escalations: each one at ``low`` is one at any
    higher ``low`` (the replay's tune relies on bands moving turns one way)."""
    low, higher = sorted((low, higher))
    high = max(high, higher)
    evidence = Evidence(confidence, composite, decision is Decision.RETRIEVE, empty and decision is Decision.RETRIEVE)

    def action(at: float) -> Decision:
        bands = Bands(high, at)
        return settle(
            decision, evidence, bands, retrieved_more=more, clarifications=clarifications, max_clarifications=2
        ).action

    if action(low) is Decision.ESCALATE:
        assert action(higher) is Decision.ESCALATE


@given(decisions, unit, unit, st.booleans(), st.integers(0, 3), unit)
def test_the_reported_confidence_is_never_above_the_blend(
    decision: Decision, confidence: float, composite: float, more: bool, clarifications: int, low: float
) -> None:
    bands = Bands(max(low, 0.75), low)
    evidence = Evidence(confidence, composite, decision is Decision.RETRIEVE, False)
    settled = settle(
        decision, evidence, bands, retrieved_more=more, clarifications=clarifications, max_clarifications=2
    )
    assert settled.confidence <= confidence
    if settled.action is Decision.ESCALATE and settled.rule != "confidence_low":
        # a hand-off never shows a band above the escalation one; with ``low`` at 0 there is no
        # confidence under it, and the hand-off answers 0 (``Bands.under_low``: never negative)
        assert settled.confidence < bands.low or settled.confidence == 0.0 == bands.low


@given(
    st.sampled_from(list(Decision)),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.integers(0, 3),
)
def test_a_settled_confidence_stays_between_0_and_1(
    decision: Decision, confidence: float, composite: float, a: float, b: float, clarifications: int
) -> None:
    """A tenant may apply a low threshold of 0: a hand-off then answered a confidence of -0.01."""
    bands = Bands(high=max(a, b), low=min(a, b))
    settled = settle(
        decision,
        Evidence(confidence, composite, retrieved=True, empty=composite < 0.2),
        bands,
        retrieved_more=False,
        clarifications=clarifications,
        max_clarifications=2,
    )
    assert 0.0 <= settled.confidence <= 1.0
