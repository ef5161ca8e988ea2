"""Sleep-cycle re-evaluation (F-25): LLM-path events decided again without candidates, convergence recorded."""

from __future__ import annotations

import pytest

from phronesis.exceptions import ConfigurationError
from phronesis.executive.reevaluation import reevaluate
from tests.engines import EngineFactory, add_heuristic
from tests.executive.conftest import answering

SMOKE = "the smoke alarm is beeping in the kitchen"
SMOKE_ACTION = "check the stove and open a window to clear the smoke"


async def test_recent_llm_decisions_are_redecided_without_candidates(make_engine: EngineFactory) -> None:
    llm = answering(SMOKE_ACTION)
    engine = await make_engine(llm=llm)
    heuristic = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.5)
    original = await engine.decide_event(SMOKE)
    await engine.decide_event("a totally unrelated question about the weather")
    await engine.background.drain()
    llm.requests.clear()
    progressed: list[int] = []

    summary = await reevaluate(engine.executive, "default", batch_size=1, progress=progressed.append)

    assert (summary.events, summary.decided, summary.converged) == (2, 2, 1) and progressed == [1, 1]
    answer_prompts = [r.prompt for r in llm.requests if "Predict the probability" not in r.prompt]
    assert answer_prompts and all("Previous responses" not in p for p in answer_prompts)
    records = await engine.decisions.query("default", strategy="sleep_cycle")
    converged = [r for r in records if r.attributes.get("reevaluated_from") == original.response_id]
    assert converged[0].attributes["convergence"]["converged_heuristic_id"] == heuristic.id
    assert {r.kind for r in records} == {"reevaluation"} and all(r.llm_calls == 2 for r in records)
    # not an A/B arm: the executive report counts only real-time decisions
    assert {row.strategy for row in await engine.decisions.summarize("default", kind="executive")} == {
        "heuristic_first"
    }
    # recorded, not applied (and convergence boosts nothing by default: seed 000 F-04)
    history = await engine.heuristics.repository.confidence_history("default", heuristic.id)
    assert history == []


async def test_reevaluation_needs_an_llm(make_engine: EngineFactory) -> None:
    engine = await make_engine()
    with pytest.raises(ConfigurationError, match="needs an LLM"):
        await reevaluate(engine.executive, "default")


async def test_earlier_sleep_cycle_records_do_not_use_up_the_limit(make_engine: EngineFactory) -> None:
    engine = await make_engine(llm=answering(SMOKE_ACTION))
    await engine.decide_event(SMOKE)
    first = await reevaluate(engine.executive, "default", limit=1)
    second = await reevaluate(engine.executive, "default", limit=1)
    assert (first.events, second.events) == (1, 1)
    assert len(await engine.decisions.query("default", strategy="sleep_cycle")) == 2
