"""A threat nothing answers is not rejected in silence (issue 46): the LLM gets it even when the event
is not immediate; without an LLM the decision says why, and the dashboard lists it by that reason."""

from __future__ import annotations

from phronesis.ui.queries import DashboardQueries, DecisionFilter
from tests.engines import EngineFactory, add_heuristic
from tests.executive.conftest import answering

FIRE = "fire! smoke pouring out of the kitchen"


async def test_a_threat_no_heuristic_answers_says_so_without_an_llm(make_engine: EngineFactory) -> None:
    engine = await make_engine()
    await add_heuristic(engine, "the smoke alarm is beeping in the bathroom", "open the window", 0.97)
    decision = await engine.decide_event(FIRE, salience={"threat": 0.95})
    assert (decision.decision_path, decision.reason, decision.accepted) == ("rejected", "emergency_unmatched", False)
    assert "a person should look at it" in str(decision.metadata["detail"])
    listed = await DashboardQueries(engine.database).decisions(
        "default", DecisionFilter(kind="executive", reason="emergency_unmatched"), limit=10
    )
    assert [r.id for r in listed] == [decision.response_id]
    calm = await engine.decide_event("the kitchen tap is dripping", salience={"threat": 0.1})
    assert calm.reason == "llm_unavailable"  # an ordinary event without a match is what it was


async def test_a_threat_goes_to_the_llm_even_when_not_immediate(make_engine: EngineFactory) -> None:
    engine = await make_engine(llm=answering("leave the house and call the fire brigade"))
    decision = await engine.decide_event(FIRE, salience={"threat": 0.95}, immediate=False)
    assert decision.decision_path == "llm" and "fire brigade" in decision.response_text
    ordinary = await engine.decide_event("the kitchen tap is dripping", immediate=False)
    assert ordinary.reason == "not_immediate"
