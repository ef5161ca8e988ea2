"""A heuristic that went bad recovers without an LLM, through exploration (issue 21, item 8):
a real server with no LLM, exploration on, the real sentence model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.journeys.conftest import Journeys, event_id, start

# a real server with the real sentence model
pytestmark = [pytest.mark.journey, pytest.mark.model, pytest.mark.process]

WASHER = ("the washing machine has finished its cycle", "remind the user to hang up the laundry")


@pytest.fixture(scope="module")
def exploring(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Journeys]:
    yield from start(
        tmp_path_factory.mktemp("exploring"), PHRONESIS_LLM__SPEC="none", PHRONESIS_EXECUTIVE__EXPLORATION_RATE="1.0"
    )


def test_a_heuristic_that_went_bad_recovers_through_explored_fires(exploring: Journeys) -> None:
    home = exploring.tenant()
    washer = home.add(*WASHER, 0.75)
    home.decide("washing machine finished", event_id=event_id())
    home.decide("undo that")
    assert home.confidence(washer) < 0.7  # below the threshold: it will not fire by itself

    explored = []
    for _ in range(60):
        decision = home.decide("the washer is done", event_id=event_id())
        if decision["decision_path"] != "heuristic":
            assert decision["decision_path"] == "rejected" and decision["reason"] == "llm_unavailable"
            assert decision["metadata"]["exploration"]["explored"] is False  # its propensity recorded too
            continue
        if not decision["metadata"].get("explored"):
            break  # confident again: an ordinary fire
        exploration = decision["metadata"]["exploration"]
        assert exploration["policy"] == "thompson" and 0 < exploration["probability"] <= 1
        explored.append(exploration["probability"])
        home.decide("thanks, that worked")  # it was right after all
    else:
        pytest.fail("the heuristic never recovered")
    assert explored and home.confidence(washer) >= 0.7
    record = home.http.get("/v1/decisions", params={"limit": 1000}).json()["items"]
    recorded = [r["attributes"]["exploration"]["probability"] for r in record if r["attributes"].get("explored")]
    assert sorted(recorded) == sorted(explored)  # every explored fire's propensity is on its record
