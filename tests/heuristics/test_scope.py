"""A heuristic's scope (issue 46): examples widen where it applies, counter-examples and opposites
narrow it; stored, searched and followed like conditions, on every backend."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from phronesis.engine import Engine
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.explanations import explain
from phronesis.heuristics.jsonl import export_line, parse_jsonl
from phronesis.heuristics.models import HeuristicCreate, HeuristicUpdate
from phronesis.heuristics.scope import Situation, judge_scope
from phronesis.storage.tables import heuristic_examples
from tests.engines import EngineFactory

T = "default"
COLD = "the user says the living room is too cold right now"
WARM = "the user says the living room is too warm right now"
LOUNGE = "brr the lounge is freezing"


# -- the judgement ---------------------------------------------------------------------------------


def test_an_opposite_positive_does_not_count_however_near() -> None:
    judged = judge_scope(WARM, [Situation(None, COLD, 0.95)], [], floor=0.7)
    assert (judged.matches, judged.why_not) == (False, "opposite")
    assert judged.opposite == "opposite: cold/warm"


def test_the_best_positive_that_is_not_opposite_decides() -> None:
    positives = [Situation(None, COLD, 0.95), Situation("e1", "the living room is stuffy", 0.81)]
    judged = judge_scope(WARM, positives, [], floor=0.7)
    assert (judged.matches, judged.similarity, judged.matched_example_id) == (True, 0.81, "e1")


def test_a_counter_example_as_near_as_the_best_example_vetoes() -> None:
    positives = [Situation(None, COLD, 0.80)]
    event = "the living room thermostat is cold to the touch"
    near = judge_scope(event, positives, [Situation("c", "x", 0.82)], floor=0.7)
    assert (near.matches, near.why_not, near.counter_similarity) == (False, "counter_example", 0.82)
    farther = judge_scope("the living room is freezing", positives, [Situation("c", "x", 0.75)], floor=0.7)
    assert farther.matches and farther.counter_similarity == 0.75


def test_a_counter_example_opposite_to_the_event_does_not_veto_it() -> None:
    """A cold-room heuristic that learned "too warm" as a counter-example still fires for "too cold"."""
    judged = judge_scope(COLD, [Situation(None, COLD, 0.9)], [Situation("c", WARM, 0.95)], floor=0.7)
    assert judged.matches


def test_nothing_near_enough_is_below_the_floor() -> None:
    judged = judge_scope("the dishwasher is done", [Situation(None, COLD, 0.3)], [], floor=0.7)
    assert (judged.matches, judged.why_not) == (False, "below_floor")


# -- stored, searched, followed ---------------------------------------------------------------------


@pytest.fixture
async def engine(make_engine: EngineFactory) -> Engine:
    built: Engine = await make_engine()
    return built


async def _cold(engine: Engine, **more: object) -> str:
    create = HeuristicCreate(
        condition_text=COLD, action_text="raise the living room thermostat", confidence=0.8, domain="home", **more
    )  # type: ignore[arg-type]
    return (await engine.heuristics.add(T, create)).id


async def test_an_event_near_an_example_matches_far_from_the_condition(engine: Engine) -> None:
    heuristic = await _cold(engine, examples=[LOUNGE])
    [match] = await engine.heuristics.match(T, "brr the lounge is freezing today", source="home")
    assert match.heuristic.id == heuristic and match.matched_text == LOUNGE and match.matched_example_id
    assert await engine.heuristics.match(T, "brr the lounge is freezing today", source="garden") == []


async def test_the_opposite_of_the_condition_does_not_match(engine: Engine) -> None:
    await _cold(engine)
    assert [m.heuristic.condition_text for m in await engine.heuristics.match(T, COLD, source="home")] == [COLD]
    assert await engine.heuristics.match(T, WARM, source="home", min_similarity=0.5) == []


async def test_a_decision_says_which_heuristic_it_set_aside_and_why(engine: Engine) -> None:
    """Issue 52: the explanation of "too warm" said "no heuristic matched", where the cold-room
    heuristic was near and set aside as its opposite; the record keeps which, and why."""
    heuristic = await _cold(engine)
    judged = await engine.heuristics.match_text_judged(T, WARM, source="home", min_similarity=0.5)
    assert judged.matches == [] and [s.heuristic.id for s in judged.set_aside] == [heuristic]
    decided = await engine.decide_event(WARM, source="home")
    assert decided.decision_path == "rejected"
    record = await engine.decisions.get(T, decided.response_id)
    [aside] = record.attributes["candidates_set_aside"]
    assert aside["heuristic_id"] == heuristic and aside["why"].startswith("opposite: cold/warm, similarity 0.")
    assert (
        "set aside: 'raise the living room thermostat' for 'the user says the living room is too cold right now' "
        "(opposite: cold/warm, similarity 0." in explain(record)
    )


async def test_a_counter_example_keeps_a_near_miss_out(engine: Engine) -> None:
    miss = "the user says the living room thermostat display is blank right now"
    heuristic = await _cold(engine)
    assert [m.heuristic.id for m in await engine.heuristics.match(T, miss, source="home", min_similarity=0.5)] == [
        heuristic
    ]
    await engine.heuristics.add_examples(T, heuristic, [miss], "counter")
    assert await engine.heuristics.match(T, miss, source="home", min_similarity=0.5) == []
    assert [m.heuristic.id for m in await engine.heuristics.match(T, COLD, source="home")] == [heuristic]


async def test_examples_go_with_their_heuristic_and_can_be_taken_back(engine: Engine) -> None:
    heuristic = await _cold(engine, examples=[LOUNGE], counter_examples=["the lounge thermostat display is blank"])
    scope = await engine.heuristics.examples.list(T, heuristic)
    assert [(e.kind, e.origin, e.text) for e in scope] == [
        ("example", "given", LOUNGE),
        ("counter", "given", "the lounge thermostat display is blank"),
    ]
    await engine.heuristics.remove_example(T, heuristic, scope[0].id)
    assert await engine.heuristics.match(T, "brr the lounge is freezing today", source="home") == []
    with pytest.raises(NotFoundError):
        await engine.heuristics.remove_example(T, heuristic, scope[0].id)
    await engine.heuristics.update(T, heuristic, HeuristicUpdate(domain="cabin"))
    await engine.heuristics.add_examples(T, heuristic, [LOUNGE], "example")
    assert await engine.heuristics.match(T, "brr the lounge is freezing today", source="cabin")
    await engine.heuristics.delete(T, heuristic)
    assert await engine.heuristics.match(T, "brr the lounge is freezing today", source="cabin") == []
    async with engine.database.connect() as conn:
        assert await conn.scalar(select(func.count()).select_from(heuristic_examples)) == 0


async def test_a_heuristics_examples_move_with_its_domain(engine: Engine) -> None:
    heuristic = await _cold(engine, examples=[LOUNGE])
    await engine.heuristics.update(T, heuristic, HeuristicUpdate(domain="cabin"))
    assert await engine.heuristics.match(T, "brr the lounge is freezing today", source="home") == []
    [match] = await engine.heuristics.match(T, "brr the lounge is freezing today", source="cabin")
    assert match.matched_text == LOUNGE


async def test_another_process_matches_examples_written_here(engine: Engine, make_engine: EngineFactory) -> None:
    other: Engine = await make_engine()  # the same database: another process's view of it
    heuristic = await _cold(engine, examples=[LOUNGE])
    [match] = await other.heuristics.match(T, "brr the lounge is freezing today", source="home")
    assert match.heuristic.id == heuristic
    await engine.heuristics.add_examples(T, heuristic, ["brr the lounge is freezing today"], "counter")
    assert await other.heuristics.match(T, "brr the lounge is freezing today", source="home") == []


async def test_an_export_brings_its_scope_back(engine: Engine) -> None:
    heuristic = await _cold(engine, id="cold", examples=[LOUNGE], counter_examples=["the heating bill is too high"])
    scope = await engine.heuristics.examples.list(T, heuristic)
    line = export_line(await engine.heuristics.repository.get(T, heuristic), scope)
    [again] = parse_jsonl(line.encode())
    assert (again.examples, again.counter_examples) == ([LOUNGE], ["the heating bill is too high"])
    await engine.heuristics.add_many("elsewhere", [again])
    [match] = await engine.heuristics.match("elsewhere", "brr the lounge is freezing today", source="home")
    assert match.heuristic.id == "cold"
    await engine.heuristics.add_many("elsewhere", [again.model_copy(update={"examples": []})], upsert=True)
    assert await engine.heuristics.match("elsewhere", "brr the lounge is freezing today", source="home") == []


async def test_a_heuristic_keeps_at_most_fifty_given_examples(engine: Engine) -> None:
    heuristic = await _cold(engine, examples=[f"the living room is cold, day {n}" for n in range(50)])
    with pytest.raises(InvalidInputError, match="at most 50"):
        await engine.heuristics.add_examples(T, heuristic, ["one more cold day"], "example")
    await engine.heuristics.add_examples(T, heuristic, ["the heating bill is high"], "counter")
