"""GLADyS's flight recorder over phronesis's fires (``FlightRecorder``): a caller's outcome is a record,
not evidence; a fire is counted once per heuristic and event whoever records it first; and with the
caller as the learner (``learning.implicit_signals`` off) no implicit signal of ours touches its fires."""

from __future__ import annotations

import pytest

from phronesis.engine import Engine
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.testing import FixedClock
from tests.engines import EngineFactory, add_heuristic


async def _confidence(engine: Engine, heuristic_id: str) -> float:
    return (await engine.heuristics.get("default", heuristic_id)).confidence


async def test_an_outcome_is_recorded_and_moves_no_confidence(make_engine: EngineFactory) -> None:
    engine: Engine = await make_engine()
    lights = await add_heuristic(engine, "it is dark", "turn on the lights", 0.5, name="lights")
    fire_id = await engine.flight_recorder.record("default", lights.id, event_id="e1", episodic_event_id="ep1")

    (pending,) = await engine.flight_recorder.pending("default", heuristic_id=lights.id)
    assert (pending.fire.id, pending.fire.event_id, pending.fire.episodic_event_id) == (fire_id, "e1", "ep1")
    assert (pending.outcome, pending.heuristic_name, pending.condition_text) == ("unknown", "lights", "it is dark")

    await engine.flight_recorder.set_outcome("default", fire_id, "success", source="user_explicit")
    assert await engine.flight_recorder.pending("default") == []
    assert await _confidence(engine, lights.id) == pytest.approx(0.5)  # the signal is the caller's to send
    listed, total = await engine.flight_recorder.page("default", outcome="success")
    assert total == 1
    (row,) = listed
    assert (row.fire.id, row.outcome, row.fire.outcome_source) == (fire_id, "success", "user_explicit")
    assert (row.heuristic_name, row.condition_text, row.confidence) == ("lights", "it is dark", pytest.approx(0.5))
    assert (await engine.flight_recorder.page("default", outcome="fail"))[1] == 0

    await engine.flight_recorder.set_outcome("default", fire_id, "unknown", source=None)  # taken back
    assert [f.fire.id for f in await engine.flight_recorder.pending("default")] == [fire_id]


async def test_an_outcome_names_what_is_wrong(make_engine: EngineFactory) -> None:
    engine: Engine = await make_engine()
    lights = await add_heuristic(engine, "it is dark", "turn on the lights", 0.5)
    fire_id = await engine.flight_recorder.record("default", lights.id, event_id="e1")
    with pytest.raises(InvalidInputError) as bad:
        await engine.flight_recorder.set_outcome("default", fire_id, "maybe", source=None)
    assert bad.value.field == "outcome" and "success, fail, unknown" in bad.value.message
    with pytest.raises(NotFoundError):
        await engine.flight_recorder.set_outcome("default", "no-such-fire", "success", source=None)
    with pytest.raises(NotFoundError):
        await engine.flight_recorder.record("default", "no-such-heuristic", event_id="e2")
    with pytest.raises(InvalidInputError) as bad:
        await engine.flight_recorder.page("default", outcome="maybe")
    assert bad.value.field == "outcome"


async def test_pending_fires_are_those_within_the_age_asked(make_engine: EngineFactory, clock: FixedClock) -> None:
    engine: Engine = await make_engine()
    lights = await add_heuristic(engine, "it is dark", "turn on the lights", 0.5)
    old = await engine.flight_recorder.record("default", lights.id, event_id="e1")
    clock.advance(seconds=120)
    new = await engine.flight_recorder.record("default", lights.id, event_id="e2")
    assert [f.fire.id for f in await engine.flight_recorder.pending("default", max_age_s=60)] == [new]
    assert [f.fire.id for f in await engine.flight_recorder.pending("default")] == [new, old]
    with pytest.raises(NotFoundError):  # not an empty list: the heuristic is not there
        await engine.flight_recorder.pending("default", heuristic_id="no-such-heuristic")


async def test_the_executive_and_the_caller_record_one_fire_per_event(make_engine: EngineFactory) -> None:
    """GLADyS's orchestrator records the fire of the heuristic it matched, and phronesis's executive
    records the one it fires: the same fire, counted once, whichever comes first."""
    engine: Engine = await make_engine(learning={"implicit_signals": False})
    lights = await add_heuristic(engine, "it is dark", "turn on the lights", 0.9)

    decided = await engine.decide_event("it is dark", event_id="e1", source="home")  # the executive first
    assert decided.matched_heuristic_id == lights.id
    again = await engine.flight_recorder.record("default", lights.id, event_id="e1")
    assert (await engine.heuristics.get("default", lights.id)).fire_count == 1

    first = await engine.flight_recorder.record("default", lights.id, event_id="e2")  # the caller first
    decided = await engine.decide_event("it is dark", event_id="e2", source="home")
    assert decided.matched_heuristic_id == lights.id
    assert (await engine.heuristics.get("default", lights.id)).fire_count == 2
    listed, total = await engine.flight_recorder.page("default")
    assert total == 2 and {row.fire.id for row in listed} == {again, first}
    adopted = next(row.fire for row in listed if row.fire.id == first)
    assert adopted.response_id == decided.response_id  # a rating of the decision rates that fire
    receipt = await engine.feedback(decided.response_id, rating="positive")
    assert receipt.accepted and await _confidence(engine, lights.id) > 0.9
    # the rating is what came of that fire, as a reader of the recorder sees it: no longer pending
    rated = next(row for row in (await engine.flight_recorder.page("default", outcome="success"))[0])
    assert (rated.fire.id, rated.outcome, rated.said_by) == (first, "success", rated.fire.explicit_source)
    assert first not in {f.fire.id for f in await engine.flight_recorder.pending("default")}


@pytest.mark.parametrize("learner", ["caller", "phronesis"])
async def test_with_the_caller_learning_no_implicit_signal_touches_its_fires(
    make_engine: EngineFactory, clock: FixedClock, learner: str
) -> None:
    """One learner: where the caller sends the implicit signals (GLADyS's orchestrator), an undo, an
    ignore or a timeout seen here counts nothing, in this process or any other on the database."""
    engine: Engine = await make_engine(learning={"implicit_signals": learner == "phronesis"})
    lights = await add_heuristic(engine, "it is dark", "turn on the lights", 0.6)
    heat = await add_heuristic(engine, "it is cold", "turn on the heating", 0.6)
    await engine.flight_recorder.record("default", lights.id, event_id="e1", source="home")
    undone = await engine.observe("no, undo that", event_id="e2", source="home")
    await engine.flight_recorder.record("default", heat.id, event_id="e3", source="home")
    clock.advance(seconds=3600)
    swept = await engine.learning.sweep()

    if learner == "caller":
        assert undone.signals == [] and swept == 0
        assert await _confidence(engine, lights.id) == pytest.approx(0.6)
        assert await _confidence(engine, heat.id) == pytest.approx(0.6)
    else:  # the same story with phronesis learning: both signals count
        assert [s.heuristic_id for s in undone.signals] == [lights.id] and swept == 1
        assert await _confidence(engine, lights.id) < 0.6 < await _confidence(engine, heat.id)
