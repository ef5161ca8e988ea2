"""Reading a follow-up (issue 46): the undo and thanks detectors judged on a labelled set, and the
follow-ups a trial took for thanks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from phronesis.engine import Engine
from phronesis.learning.follow_ups import FollowUpReader
from tests.engines import EngineFactory, add_heuristic

LABELLED = Path(__file__).parents[2] / "benchmarks" / "data" / "follow_ups.jsonl"
reader = FollowUpReader()


def _read(split: str) -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in LABELLED.read_text().splitlines() if line.strip()]
    return [(row["label"], reader.read(row["text"])) for row in rows if row["split"] == split]


@pytest.mark.parametrize("split", ["dev", "test"])
def test_undo_and_thanks_are_read_with_precision(split: str) -> None:
    """On each half of 251 labelled follow-ups (rules written on dev): what is read as thanks or as
    an undo is one at least 95 % of the time."""
    read = _read(split)
    for label in ("thanks", "undo"):
        said = [meant for meant, got in read if got == label]
        assert len(said) >= 20 and sum(meant == label for meant in said) / len(said) >= 0.95, label


def test_no_complaint_of_the_dev_half_is_read_as_thanks() -> None:
    assert [meant for meant, got in _read("dev") if meant == "complaint" and got == "thanks"] == []


@pytest.mark.parametrize(
    "text",
    [
        "nothing worked",
        "there is a great deal of smoke in the kitchen",
        "what exactly is the thermostat set to?",
        "the weather is nice today",
        "that was not great",
        "great, now it's too hot",
        "thanks to the rain the garden is wet",
    ],
)
def test_what_a_trial_took_for_thanks_is_not(text: str) -> None:
    assert reader.read(text) != "thanks"


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("thanks, that worked", "thanks"),
        ("perfect!", "thanks"),
        ("no complaints, that's exactly right", "thanks"),
        ("no wait, cancel that", "undo"),
        ("put it back the way it was", "undo"),
        ("what is your cancellation policy?", "question"),
        ("no need to cancel", "other"),
        ("that didn't help at all", "complaint"),
        ("still freezing in here", "complaint"),
    ],
)
def test_plain_follow_ups(text: str, meant: str) -> None:
    assert reader.read(text) == meant


@pytest.fixture
async def engine(make_engine: EngineFactory) -> Engine:
    built: Engine = await make_engine()
    return built


async def test_a_complaint_after_a_fire_counts_against_it(engine: Engine) -> None:
    """A trial: "nothing worked" after a fire gave ``confirmed: true`` and a positive worth more than a rating."""
    lights = await add_heuristic(engine, "it is dark", "turn on the lights", 0.8, domain="home")
    await engine.record_fire(lights.id, event_id="e1", source="home")
    observed = await engine.observe("nothing worked", event_id="e2", source="home")
    assert (observed.confirmed, observed.undo, observed.complaint) == (False, False, True)
    assert [(s.source, s.signal) for s in observed.signals] == [("implicit_complaint", "negative")]
    assert (await engine.heuristics.repository.get("default", lights.id)).confidence < 0.8
