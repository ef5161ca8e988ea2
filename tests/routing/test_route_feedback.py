"""Feedback on routing decisions, recorded on the decision, and the exemplars it teaches."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from phronesis.engine import Engine
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.routing.decisions import Decision
from phronesis.routing.route_feedback import RouteFeedback, RouteFeedbackIn
from phronesis.routing.sessions import NewSession
from phronesis.routing.tools import ToolIn
from phronesis.testing import FixedClock
from tests.engines import EngineFactory
from tests.routing.conftest import exemplars, out_of_scope

T = "default"


def _session_rate(engine: Engine) -> Callable[[str, str, RouteFeedbackIn], Awaitable[RouteFeedback]]:
    """A rating as the session's route sends it (``POST /v1/sessions/{id}/route-feedback``)."""
    return lambda tenant, sid, body: engine.routing.rate(tenant, body.decision_id, body, session_id=sid)


async def _engine(make_engine: EngineFactory) -> Engine:
    engine: Engine = await make_engine()
    await engine.routing.fit(T, exemplars(), oos=out_of_scope())
    return engine


async def test_a_rating_is_recorded_on_the_decision_and_the_last_one_wins(make_engine: EngineFactory) -> None:
    engine = await _engine(make_engine)
    sid = (await engine.routing.create_session(T, NewSession())).id
    routed = await engine.route(sid, "thanks that helps")
    rate = _session_rate(engine)

    first = await rate(T, sid, RouteFeedbackIn(decision_id=routed.decision_id, correct=True))
    assert (first.outcome, first.decided) == ("correct", "REASON_ONLY")
    wrong = RouteFeedbackIn(decision_id=routed.decision_id, correct=False, expected_decision=Decision.RETRIEVE)
    second = await rate(T, sid, wrong)
    record = await engine.decisions.get(T, routed.decision_id)
    assert record.outcome == "incorrect" == second.outcome
    assert record.attributes["route_feedback"]["expected_decision"] == "RETRIEVE"
    assert record.attributes["band"] is not None  # the rest of the record is untouched

    taught = await engine.routing.feedback.exemplars(T)
    assert [(e.text, e.label, e.decision) for e in taught] == [("thanks that helps", "RETRIEVE", Decision.RETRIEVE)]


async def test_what_rated_decisions_teach(make_engine: EngineFactory, clock: FixedClock) -> None:
    engine = await _engine(make_engine)
    await engine.routing.put_tool(T, ToolIn(name="calendar", description="book meetings"))
    sid = (await engine.routing.create_session(T, NewSession())).id
    right = await engine.route(sid, "how much does pro cost")
    clock.advance(seconds=1)
    wrong = await engine.route(sid, "thanks that helps")
    clock.advance(seconds=1)
    unknown = await engine.route(sid, "what do plans cost")
    rate = _session_rate(engine)
    await rate(T, sid, RouteFeedbackIn(decision_id=right.decision_id, correct=True))
    fix = RouteFeedbackIn(
        decision_id=wrong.decision_id, correct=False, expected_decision=Decision.USE_TOOL, expected_tool="calendar"
    )
    await rate(T, sid, fix)
    await rate(T, sid, RouteFeedbackIn(decision_id=unknown.decision_id, correct=False))  # no correction: nothing

    taught = await engine.routing.feedback.exemplars(T)
    assert right.decision is not None
    assert [(e.text, e.label, e.decision) for e in taught] == [
        ("how much does pro cost", right.decision, Decision(right.decision)),
        ("thanks that helps", "calendar", Decision.USE_TOOL),
    ]


async def test_only_a_routed_decision_of_that_session_can_be_rated(make_engine: EngineFactory) -> None:
    engine = await _engine(make_engine)
    sid = (await engine.routing.create_session(T, NewSession())).id
    other = (await engine.routing.create_session(T, NewSession())).id
    routed = await engine.route(sid, "thanks that helps")
    rate = _session_rate(engine)
    with pytest.raises(InvalidInputError) as elsewhere:  # it exists: "not found" would mislead
        await rate(T, other, RouteFeedbackIn(decision_id=routed.decision_id, correct=True))
    assert elsewhere.value.field == "decision_id"
    assert f"is of session {sid!r}, not of {other!r}" in str(elsewhere.value)
    with pytest.raises(NotFoundError):
        await rate(T, sid, RouteFeedbackIn(decision_id="nope", correct=True))
    escalated = await engine.route(sid, "I want a refund now")
    waiting = await engine.route(sid, "hello?")  # a human owns the session: not routed
    assert escalated.decision == "ESCALATE" and waiting.decision is None
    with pytest.raises(InvalidInputError):
        await rate(T, sid, RouteFeedbackIn(decision_id=waiting.decision_id, correct=True))
    contradicts = RouteFeedbackIn(decision_id=routed.decision_id, correct=False, expected_decision=Decision.REASON_ONLY)
    with pytest.raises(InvalidInputError, match="rate it correct"):  # it decided REASON_ONLY
        await rate(T, sid, contradicts)
    assert (await engine.decisions.get(T, routed.decision_id)).outcome is None  # nothing written


@pytest.mark.parametrize(
    "fields",
    [
        {"correct": True, "expected_decision": "RETRIEVE"},
        {"correct": False, "expected_decision": "RETRIEVE", "expected_tool": "calendar"},
    ],
)
def test_inconsistent_feedback_is_refused(fields: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="expected"):
        RouteFeedbackIn.model_validate({"decision_id": "d"} | fields)


async def test_a_tool_that_is_not_registered_is_refused_and_a_deleted_one_teaches_nothing(
    make_engine: EngineFactory,
) -> None:
    """Issue 47: ``expected_tool: "teleporter"`` was accepted, and ``routing fit --from-feedback``
    then routed "who won the football last night?" to the teleporter."""
    engine = await _engine(make_engine)
    await engine.routing.put_tool(T, ToolIn(name="calendar", description="book meetings"))
    sid = (await engine.routing.create_session(T, NewSession())).id
    routed = await engine.route(sid, "thanks that helps")
    rate = _session_rate(engine)
    for tool in ("teleporter", "Calendar"):
        bad = RouteFeedbackIn(
            decision_id=routed.decision_id, correct=False, expected_decision=Decision.USE_TOOL, expected_tool=tool
        )
        with pytest.raises(InvalidInputError) as refused:
            await rate(T, sid, bad)
        assert refused.value.field == "expected_tool" and "calendar" in refused.value.message
    record = await engine.decisions.get(T, routed.decision_id)
    assert record.outcome is None  # nothing half-written
    good = RouteFeedbackIn(
        decision_id=routed.decision_id, correct=False, expected_decision=Decision.USE_TOOL, expected_tool="calendar"
    )
    await rate(T, sid, good)
    assert [e.label for e in await engine.routing.feedback.exemplars(T)] == ["calendar"]
    await engine.routing.tools.delete(T, ["calendar"])
    assert await engine.routing.feedback.exemplars(T) == []
