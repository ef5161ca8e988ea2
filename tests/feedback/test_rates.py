"""The feedback seam (``feedback.rates.Rates``): one contract every decision point's rating passes.

Each point is rated the same way, ``rate(tenant, decision_id, rating)``: a decision it made takes
the rating and says so; an id it never decided, or another tenant's, is ``NotFoundError``; a rating
that names another decision than the one rated is refused, naming the field."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from phronesis.admission.feedback import AdmissionFeedbackIn
from phronesis.engine import Engine
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.feedback.models import Feedback
from phronesis.feedback.rates import Rates
from phronesis.routing.route_feedback import RouteFeedbackIn
from phronesis.routing.sessions import NewSession
from tests.engines import add_heuristic
from tests.routing.conftest import exemplars, out_of_scope

T = "default"


@dataclass(frozen=True)
class Point:
    """How to reach one point's rating seam, make a decision of it and rate a decision by id."""

    seam: Callable[[Engine], Rates[Any, Any]]
    decide: Callable[[Engine], Awaitable[str]]
    rating: Callable[[str], Any]
    names_its_decision: str | None
    """The rating's field that names the decision (None: the rating does not name it)."""


async def _executive(engine: Engine) -> str:
    await add_heuristic(engine, "the hall is dark", "turn on the hall light", 0.9)
    return (await engine.decide_event("the hall is dark", source="home")).response_id


async def _fire(engine: Engine) -> str:
    heuristic = await add_heuristic(engine, "the porch is dark", "turn on the porch light", 0.6)
    return (await engine.record_fire(heuristic.id, event_id="e1", source="home")).id


async def _routing(engine: Engine) -> str:
    await engine.routing.fit(T, exemplars(), oos=out_of_scope())
    session = await engine.routing.create_session(T, NewSession())
    return (await engine.route(session.id, "thanks that helps")).decision_id


async def _admission(engine: Engine) -> str:
    return (await engine.admit_run("Generate the schema", outcome="success", steps=["wrote it"])).decision_id


POINTS = {
    "executive": Point(
        lambda e: e.executive_feedback, _executive, lambda d: Feedback(response_id=d, rating="positive"), "response_id"
    ),
    "learning": Point(
        lambda e: e.learning_feedback, _fire, lambda d: Feedback(response_id=d, rating="positive"), "response_id"
    ),
    "routing": Point(
        lambda e: e.routing, _routing, lambda d: RouteFeedbackIn(decision_id=d, correct=True), "decision_id"
    ),
    "admission": Point(lambda e: e.admission, _admission, lambda d: AdmissionFeedbackIn(correct=True), None),
}


@pytest.fixture(params=sorted(POINTS))
def point(request: pytest.FixtureRequest) -> Point:
    return POINTS[request.param]


async def test_a_decision_of_the_point_takes_its_rating(engine: Engine, point: Point) -> None:
    decision_id = await point.decide(engine)
    receipt = await point.seam(engine).rate(T, decision_id, point.rating(decision_id))
    said = receipt.model_dump()
    assert decision_id in (said.get("response_id"), said.get("decision_id"))


async def test_an_unknown_decision_or_another_tenants_is_not_found(engine: Engine, point: Point) -> None:
    decision_id = await point.decide(engine)
    with pytest.raises(NotFoundError):
        await point.seam(engine).rate(T, "no-such-decision", point.rating("no-such-decision"))
    with pytest.raises(NotFoundError):
        await point.seam(engine).rate("another-tenant", decision_id, point.rating(decision_id))


@pytest.mark.parametrize("name", sorted(name for name, point in POINTS.items() if point.names_its_decision))
async def test_a_rating_of_another_decision_is_refused_naming_the_field(engine: Engine, name: str) -> None:
    point = POINTS[name]
    decision_id = await point.decide(engine)
    with pytest.raises(InvalidInputError) as refused:
        await point.seam(engine).rate(T, decision_id, point.rating("another-decision"))
    assert refused.value.field == point.names_its_decision
