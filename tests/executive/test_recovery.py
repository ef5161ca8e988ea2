"""The recovery rule (issue 46): a heuristic pushed below the threshold by one undo fires again on
probation an hour later; if that goes well the undo is taken back, if it is undone again it stays."""

from __future__ import annotations

import pytest

from phronesis.engine import Engine
from phronesis.testing import FixedClock
from tests.engines import EngineFactory, add_heuristic

GARAGE = "the car is in the garage and the engine is off"
UNDO = "no wait, cancel that, I am still unloading the car"


@pytest.fixture
async def engine(make_engine: EngineFactory) -> Engine:
    built: Engine = await make_engine()
    return built


async def _undone(engine: Engine) -> str:
    """The garage heuristic fired and was undone: 0.8 → below the 0.7 threshold."""
    heuristic = await add_heuristic(engine, GARAGE, "close the garage door", 0.8, domain="home")
    assert (await engine.decide_event(GARAGE, source="home")).decision_path == "heuristic"
    observed = await engine.observe(UNDO, event_id="undo-1", source="home")
    assert observed.undo
    assert (await engine.heuristics.repository.get("default", heuristic.id)).confidence < 0.7
    return heuristic.id


async def test_one_undo_is_not_fatal(engine: Engine, clock: FixedClock) -> None:
    heuristic = await _undone(engine)
    assert (await engine.decide_event(GARAGE, source="home")).decision_path == "rejected"  # too soon
    clock.advance(seconds=3600)
    probation = await engine.decide_event(GARAGE, source="home")
    assert (probation.decision_path, probation.reason) == ("heuristic", "probation")
    assert "on probation" in str(probation.metadata["detail"])
    clock.advance(seconds=31)
    assert await engine.learning.sweep() == 1  # no undo this time: no news is good news
    history = (await engine.learning.history("default", heuristic)).items
    assert "recovered" in [step.lesson for step in history]
    assert (await engine.heuristics.repository.get("default", heuristic)).confidence >= 0.7
    again = await engine.decide_event(GARAGE, source="home")
    assert (again.decision_path, again.reason) == ("heuristic", None)


async def test_undone_on_probation_it_stays_down(engine: Engine, clock: FixedClock) -> None:
    heuristic = await _undone(engine)
    clock.advance(seconds=3600)
    assert (await engine.decide_event(GARAGE, source="home")).reason == "probation"
    assert (await engine.observe("undo that", event_id="undo-2", source="home")).undo
    clock.advance(seconds=7200)
    assert (await engine.decide_event(GARAGE, source="home")).decision_path == "rejected"
    assert "recovered" not in [s.lesson for s in (await engine.learning.history("default", heuristic)).items]


async def test_a_negative_rating_is_not_taken_back(engine: Engine, clock: FixedClock) -> None:
    await add_heuristic(engine, GARAGE, "close the garage door", 0.8, domain="home")
    decision = await engine.decide_event(GARAGE, source="home")
    await engine.feedback(decision.response_id, rating="negative")  # 0.8 → below 0.7: someone said so
    clock.advance(seconds=7200)
    assert (await engine.decide_event(GARAGE, source="home")).decision_path == "rejected"
