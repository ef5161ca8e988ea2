"""Confidence that means a probability (issue 21, ECE): a real server with the ``calibrated``
learning strategy, the real sentence model and the scripted LLM.

The story seed 001's strategy gets wrong: the user rates a fire 👎 and says nothing more, so
the sweeper's "no news is good news" outweighs the rating and the heuristic fires again. Here
silence is weighed by what it says about a fire, learned from the fires users rated."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.journeys.conftest import Journeys, Tenant, event_id, start

# a real server with the real sentence model
pytestmark = [pytest.mark.journey, pytest.mark.model, pytest.mark.process]

PORCH = ("there is motion on the front porch at night", "turn on the porch light")
KETTLE = ("the kettle in the kitchen has boiled", "remind the user that the tea water is ready")


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Journeys]:
    yield from start(tmp_path_factory.mktemp("calibrated"), PHRONESIS_LEARNING__STRATEGY="calibrated")


def _swept(home: Tenant, heuristic_id: str, signals: int) -> None:
    """Wait for the service's sweeper (undo window 3 s) to have given ``signals`` signals in all."""
    deadline = time.monotonic() + 30
    while len(home.history(heuristic_id)) < signals:
        assert time.monotonic() < deadline, home.history(heuristic_id)
        time.sleep(0.25)


def _channel(home: Tenant, outcome: str) -> dict[str, Any]:
    report = home.http.get("/v1/learning/channel").json()
    assert report["strategy"] == "calibrated" and report["weighs_outcomes"] is True
    row: dict[str, Any] = next(r for r in report["outcomes"] if r["outcome"] == outcome)
    return row


def test_a_thumbs_down_followed_by_silence_is_not_a_success(calibrated: Journeys) -> None:
    home = calibrated.tenant()
    porch = home.add(*PORCH, 0.85, domain="")  # no domain: it applies to every source
    # the situation it is for (issue 46: a 👎 on one it is not for would teach a counter-example)
    fired = home.decide("there is motion on the front porch at night", source="porch-camera")
    assert (fired["decision_path"], fired["matched_heuristic_id"]) == ("heuristic", porch)
    home.rate(fired["response_id"], rating="negative")  # wrong: it was the cat, the light woke the baby
    rated = home.confidence(porch)
    deadline = time.monotonic() + 30  # the sweeper's timeout (undo window 3 s) closes the fire
    while _channel(home, "implicit_timeout")["rated_not_helped"] < 1:
        assert time.monotonic() < deadline, _channel(home, "implicit_timeout")
        time.sleep(0.25)

    # the rating says whether it helped: the silence after it adds nothing (issue 52: it had been
    # weighed at the heuristic's confidence, as if nobody knew), and teaches the channel
    assert [step["source"] for step in home.history(porch)] == ["user_explicit"]
    assert home.confidence(porch) == rated < 0.7
    again = home.decide("movement detected on the porch at night", source="porch-camera-2")
    assert again["decision_path"] == "llm"  # the LLM answers; the porch light is only its best candidate
    learned = _channel(home, "implicit_timeout")
    assert learned["rated_not_helped"] == 1 and learned["rated_helped"] == 0  # it taught the channel


def test_a_heuristic_that_helps_climbs_on_silence_and_thanks(calibrated: Journeys) -> None:
    home = calibrated.tenant()
    kettle = home.add(*KETTLE, 0.75, domain="")
    sources = [f"kitchen-{n}" for n in range(3)]
    for text, source in zip(
        ["the kettle in the kitchen just boiled", "the kitchen kettle has boiled", "kettle in the kitchen boiled"],
        sources,
        strict=True,
    ):
        decision = home.decide(text, source=source, event_id=event_id())
        assert (decision["decision_path"], decision["matched_heuristic_id"]) == ("heuristic", kettle)
    thanks = home.observe("thanks, perfect", event_id=event_id(), source=sources[0])
    assert thanks["confirmed"] and [s["source"] for s in thanks["signals"]] == ["user_implicit"]
    _swept(home, kettle, 3)

    steps = home.history(kettle)
    assert sorted(step["source"] for step in steps) == ["implicit_timeout", "implicit_timeout", "user_implicit"]
    assert all(step["new_confidence"] > step["old_confidence"] for step in steps)  # each says "it helped", softly
    assert 0.75 < home.confidence(kettle) < 0.95
    later = home.decide("the kettle in the kitchen has finished boiling", source="kitchen-9")
    assert (later["decision_path"], later["matched_heuristic_id"]) == ("heuristic", kettle)
