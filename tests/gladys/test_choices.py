"""Where GLADyS and phronesis mean different things by one field, the choice and the setting that
switches it (``gladys.*``), over loopback to servicers in this process; and how a GLADyS heuristic
maps to phronesis's and back."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import grpc
import pytest

from phronesis.engine import Engine
from phronesis.exceptions import InvalidInputError
from phronesis.gladys.executive import ExecutiveServicer
from phronesis.gladys.heuristics import action_of, create_of, message_of
from phronesis.gladys.memory import MemoryServicer
from phronesis.gladys.server import for_deployment
from phronesis.gladys.wire import common_pb2, executive_pb2, executive_pb2_grpc, memory_pb2, memory_pb2_grpc
from phronesis.heuristics.models import HeuristicUpdate
from phronesis.settings import Settings
from tests.engines import EngineFactory, add_heuristic


@asynccontextmanager
async def serving(engine: Engine) -> AsyncIterator[grpc.aio.Channel]:
    server = grpc.aio.server()
    memory_pb2_grpc.add_MemoryStorageServicer_to_server(MemoryServicer(engine, "default"), server)
    executive_pb2_grpc.add_ExecutiveServiceServicer_to_server(ExecutiveServicer(engine, "default"), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield channel
    finally:
        await server.stop(grace=None)


async def _deltas(engine: Engine) -> tuple[float, float]:
    """The step of a rating sent without a magnitude, and of one sent with 1.0, from the same start."""
    unset = await add_heuristic(engine, "it is dark", "turn on the lights", 0.5)
    full = await add_heuristic(engine, "it is cold", "turn on the heating", 0.5)
    async with serving(engine) as channel:
        memory = memory_pb2_grpc.MemoryStorageStub(channel)
        a = await memory.UpdateHeuristicConfidence(
            memory_pb2.UpdateHeuristicConfidenceRequest(heuristic_id=unset.id, positive=True)
        )
        b = await memory.UpdateHeuristicConfidence(
            memory_pb2.UpdateHeuristicConfidenceRequest(heuristic_id=full.id, positive=True, magnitude=1.0)
        )
    return a.delta, b.delta


async def test_a_rating_sent_without_a_magnitude_is_a_full_signal_by_default(make_engine: EngineFactory) -> None:
    unset, full = await _deltas(await make_engine())
    assert unset == pytest.approx(full) and unset > 0


async def test_gladys_unset_magnitude_weighs_it_as_phronesis_s_binary_rating(make_engine: EngineFactory) -> None:
    unset, full = await _deltas(await make_engine(gladys={"unset_magnitude": 0.8}))
    assert 0 < unset < full


@pytest.mark.parametrize("accept_fallback", [False, True])
async def test_accepted_on_a_decision_that_answered_nothing(make_engine: EngineFactory, accept_fallback: bool) -> None:
    engine: Engine = await make_engine(gladys={"accept_fallback": accept_fallback})
    async with serving(engine) as channel:
        executive = executive_pb2_grpc.ExecutiveServiceStub(channel)
        event = common_pb2.Event(id="e1", source="home", raw_text="the cellar smells of gas")
        decided = await executive.ProcessEvent(executive_pb2.ProcessEventRequest(event=event, immediate=True))
    assert (decided.accepted, decided.error_message, decided.decision_path) == (
        accept_fallback,
        "llm_unavailable",
        "rejected",
    )


def test_a_gladys_deployment_has_one_learner() -> None:
    ours = for_deployment(Settings())
    assert (ours.learning.implicit_signals, ours.executive.observe_on_decide) == (False, False)
    theirs = for_deployment(Settings(gladys={"learner": "phronesis"}))
    assert (theirs.learning.implicit_signals, theirs.executive.observe_on_decide) == (True, True)


@pytest.mark.parametrize(
    ("effects", "action"),
    [
        ({"type": "suggest", "message": "close the door"}, "close the door"),
        ({"type": "say", "text": "hello"}, "hello"),
        ({"response": " lock up "}, "lock up"),
    ],
)
def test_the_action_is_what_the_effect_says(effects: dict[str, str], action: str) -> None:
    assert action_of(json.dumps(effects)) == (action, effects)


@pytest.mark.parametrize(
    ("effects_json", "said"),
    [
        ("{suggest", "is not JSON"),
        ('["close the door"]', "must be a JSON object"),
        ('{"type": "suggest"}', "has no action"),
        ('{"type": "suggest", "message": "  "}', "has no action"),
    ],
)
def test_an_effect_without_an_action_is_refused_naming_the_field(effects_json: str, said: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        action_of(effects_json)
    assert refused.value.field == "heuristic.effects_json" and said in refused.value.message


@pytest.mark.parametrize(
    ("origin", "ours"), [("test", "dev"), ("built_in", "pack"), ("learned", "learned"), ("someday", "dev"), ("", "dev")]
)
def test_every_gladys_origin_is_accepted_and_answered_back(origin: str, ours: str) -> None:
    given = memory_pb2.Heuristic(
        condition_text="it rains", effects_json='{"message": "take an umbrella"}', origin=origin
    )
    created = create_of(given)
    assert created.origin == ours and created.attributes["gladys"].get("origin") == (origin or None)


def test_a_field_is_named_as_gladys_sent_it() -> None:
    too_long = memory_pb2.Heuristic(condition_text="it rains", effects_json='{"message": "x"}', source="a" * 200)
    with pytest.raises(InvalidInputError) as refused:
        create_of(too_long)
    assert refused.value.field == "heuristic.source"


async def test_a_changed_action_is_what_gladys_reads_back(make_engine: EngineFactory) -> None:
    engine: Engine = await make_engine()
    given = memory_pb2.Heuristic(
        id="h-1", condition_text="it rains", effects_json='{"type": "suggest", "message": "take an umbrella", "p": 1}'
    )
    (stored,) = await engine.heuristics.add_many("default", [create_of(given)], upsert=True)
    changed = await engine.heuristics.update("default", stored.id, HeuristicUpdate(action_text="take a raincoat"))
    assert json.loads(message_of(changed).effects_json) == {"type": "suggest", "message": "take a raincoat", "p": 1}
