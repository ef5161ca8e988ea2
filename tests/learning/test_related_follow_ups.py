"""A follow-up answers only the fires it is about (issue 46): a busy source's unrelated events are
neither ignores nor work, "undo that" answers the latest, and a named reply answers what it names."""

from __future__ import annotations

import pytest

from phronesis.engine import Engine
from phronesis.testing import FixedClock
from tests.engines import EngineFactory, add_heuristic

T = "default"
PARCEL = ("a parcel is at the front door", "tell the user a parcel has arrived at the front door")


@pytest.fixture
async def engine(make_engine: EngineFactory) -> Engine:
    built: Engine = await make_engine()
    return built


async def test_unrelated_events_of_a_busy_source_erase_nothing(engine: Engine) -> None:
    """A trial: a package heuristic (0.75) fired, then dishwasher events from ``home``; three of
    them and it was at 0.50 and never fired again."""
    parcel = await add_heuristic(engine, *PARCEL, 0.75, domain="home")
    await engine.record_fire(parcel.id, event_id="p1", source="home", event_text="a parcel is at the front door")
    for n in range(3):
        observed = await engine.observe("the dishwasher has finished its cycle", event_id=f"d{n}", source="home")
        assert observed.signals == []
    assert (await engine.heuristics.repository.get(T, parcel.id)).confidence == pytest.approx(0.75)
    about = await engine.observe("the parcel at the front door is still there", event_id="d9", source="home")
    assert [(s.heuristic_id, s.source) for s in about.signals] == [(parcel.id, "implicit_ignored")]


async def test_an_undo_about_nothing_answers_the_latest_event(engine: Engine, clock: FixedClock) -> None:
    parcel = await add_heuristic(engine, *PARCEL, 0.75, domain="home")
    lights = await add_heuristic(engine, "it is dark", "turn on the porch lights", 0.75, domain="home")
    await engine.record_fire(parcel.id, event_id="e1", source="home", event_text="a parcel is at the front door")
    clock.advance(seconds=2)
    await engine.record_fire(lights.id, event_id="e2", source="home", event_text="it is dark")
    observed = await engine.observe("no wait, undo that", event_id="e3", source="home")
    assert observed.undo and [s.heuristic_id for s in observed.signals] == [lights.id]


async def test_a_named_reply_answers_what_it_names(engine: Engine) -> None:
    parcel = await add_heuristic(engine, *PARCEL, 0.75, domain="home")
    lights = await add_heuristic(engine, "it is dark", "turn on the porch lights", 0.75, domain="home")
    first = await engine.record_fire(parcel.id, event_id="e1", source="home", event_text=PARCEL[0])
    await engine.record_fire(lights.id, event_id="e2", source="home", event_text="it is dark")
    observed = await engine.observe("thanks!", event_id="e3", source="home", reply_to=first.id)
    assert observed.confirmed and [s.heuristic_id for s in observed.signals] == [parcel.id]


async def test_only_the_latest_open_fires_are_looked_at(engine: Engine) -> None:
    """However many fires a source has open, a follow-up is compared with its latest few (cost)."""
    lights = await add_heuristic(engine, "it is dark", "turn on the porch lights", 0.75, domain="home")
    for n in range(20):
        await engine.record_fire(lights.id, event_id=f"e{n:02d}", source="home", event_text="it is dark")
    observed = await engine.observe("the porch lights did not come on, it is dark", event_id="x", source="home")
    assert 0 < len(observed.signals) <= 8
