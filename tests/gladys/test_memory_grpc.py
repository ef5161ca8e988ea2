"""GLADyS's heuristic memory (``gladys.memory.MemoryStorage``'s heuristic calls) over its own gRPC wire,
against a real ``phronesis grpc`` process with the real sentence model, called as GLADyS's
orchestrator and salience gateway call it: the stories its integration scripts tell (a heuristic
stored, fired and rated five times from 0.5 to above 0.8; an unknown id answered ``NOT_FOUND``), each
RPC, and the status codes its callers expect."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import numpy as np
import pytest

from phronesis.gladys.wire import common_pb2, executive_pb2, executive_pb2_grpc, memory_pb2, memory_pb2_grpc, types_pb2
from tests.gladys.conftest import Gladys, running

pytestmark = [pytest.mark.process, pytest.mark.model]


@pytest.fixture
async def channel(gladys: Gladys) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(gladys.memory) as channel:
        yield channel


@pytest.fixture
def memory(channel: grpc.aio.Channel) -> memory_pb2_grpc.MemoryStorageStub:
    return memory_pb2_grpc.MemoryStorageStub(channel)


def _heuristic(heuristic_id: str, condition: str, message: str, **fields: object) -> memory_pb2.Heuristic:
    effects = json.dumps({"type": "suggest", "message": message})
    defaults: dict[str, object] = {"confidence": 0.5, "origin": "test", "source": "home"}
    return memory_pb2.Heuristic(
        id=heuristic_id,
        condition_text=condition,
        effects_json=effects,
        **(defaults | fields),  # type: ignore[arg-type]
    )


async def _store(memory: memory_pb2_grpc.MemoryStorageStub, heuristic: memory_pb2.Heuristic) -> str:
    stored = await memory.StoreHeuristic(memory_pb2.StoreHeuristicRequest(heuristic=heuristic, generate_embedding=True))
    assert stored.success and stored.error == ""
    return stored.heuristic_id


async def _refused(call: object, code: grpc.StatusCode) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call  # type: ignore[misc]
    assert refused.value.code() is code, refused.value.details()
    return refused.value.details() or ""


async def test_a_heuristic_stored_fired_and_rated_five_times_rises_from_half_to_above_0_8(
    memory: memory_pb2_grpc.MemoryStorageStub,
) -> None:
    """GLADyS's learning loop: store, fire, record the outcome, send the learning signal."""
    heuristic_id = await _store(
        memory, _heuristic("h-kettle", "the kettle has boiled", "pour the tea", name="tea", origin="learned")
    )
    confidences = [0.5]
    for n in range(5):
        fired = await memory.RecordHeuristicFire(
            memory_pb2.RecordHeuristicFireRequest(
                heuristic_id=heuristic_id, event_id=f"kettle-{n}", episodic_event_id=f"kettle-{n}"
            )
        )
        assert fired.fire_id
        done = await memory.UpdateFireOutcome(
            memory_pb2.UpdateFireOutcomeRequest(fire_id=fired.fire_id, outcome="success", feedback_source="explicit")
        )
        assert done.success
        update = await memory.UpdateHeuristicConfidence(
            memory_pb2.UpdateHeuristicConfidenceRequest(
                heuristic_id=heuristic_id, positive=True, predicted_success=confidences[-1], feedback_source="explicit"
            )
        )
        assert update.success and update.old_confidence == pytest.approx(confidences[-1], abs=1e-6)
        assert (
            update.delta == pytest.approx(update.new_confidence - update.old_confidence, abs=1e-6) and update.delta > 0
        )
        assert update.td_error == pytest.approx(1.0 - confidences[-1], abs=1e-6)
        confidences.append(update.new_confidence)
    assert confidences[-1] > 0.8, confidences
    got = (await memory.GetHeuristic(memory_pb2.GetHeuristicRequest(id=heuristic_id))).heuristic
    assert (got.fire_count, got.confidence) == (5, pytest.approx(confidences[-1], abs=1e-6))
    assert (got.name, got.origin, json.loads(got.effects_json)) == (
        "tea",
        "learned",
        {"type": "suggest", "message": "pour the tea"},
    )
    assert got.last_fired_ms > 0 and got.created_at_ms > 0


async def test_a_stored_heuristic_comes_back_as_it_was_sent(memory: memory_pb2_grpc.MemoryStorageStub) -> None:
    sent = memory_pb2.Heuristic(
        id="h-door",
        name="door",
        condition_text="the front door was left open",
        effects_json=json.dumps({"type": "suggest", "message": "close the front door", "priority": 2}),
        confidence=0.6,
        origin="test",
        origin_id="script-1",
        similarity_threshold=0.75,
        next_heuristic_ids=["h-lock"],
        is_terminal=True,
        source="home",
    )
    assert await _store(memory, sent) == "h-door"
    got = (await memory.GetHeuristic(memory_pb2.GetHeuristicRequest(id="h-door"))).heuristic
    assert json.loads(got.effects_json) == {"type": "suggest", "message": "close the front door", "priority": 2}
    assert (got.origin, got.origin_id, got.source, list(got.next_heuristic_ids), got.is_terminal) == (
        "test",
        "script-1",
        "home",
        ["h-lock"],
        True,
    )
    assert got.similarity_threshold == pytest.approx(0.75) and got.confidence == pytest.approx(0.6)
    replaced = memory_pb2.Heuristic()
    replaced.CopyFrom(sent)
    replaced.effects_json = json.dumps({"type": "suggest", "message": "shut the front door"})
    assert await _store(memory, replaced) == "h-door"  # stored again by id: replaced, not a second one
    got = (await memory.GetHeuristic(memory_pb2.GetHeuristicRequest(id="h-door"))).heuristic
    assert json.loads(got.effects_json)["message"] == "shut the front door"


async def test_matching_heuristics_answer_the_salience_gateway_within_its_source(
    memory: memory_pb2_grpc.MemoryStorageStub,
) -> None:
    await _store(memory, _heuristic("h-plants", "the plants need watering", "water the plants", source="garden"))
    await _store(memory, _heuristic("h-sprinkler", "the lawn is dry", "run the sprinkler", source="yard"))
    found = await memory.QueryMatchingHeuristics(
        memory_pb2.QueryMatchingHeuristicsRequest(
            event_text="the plants are thirsty and need water", source_filter="garden"
        )
    )
    assert [m.heuristic.id for m in found.matches] == ["h-plants"]
    (match,) = found.matches
    assert 0.7 <= match.similarity <= 1.0 and match.score == pytest.approx(
        match.similarity * match.heuristic.confidence
    )
    elsewhere = await memory.QueryMatchingHeuristics(
        memory_pb2.QueryMatchingHeuristicsRequest(
            event_text="the plants are thirsty and need water", source_filter="yard"
        )
    )
    assert [m.heuristic.id for m in elsewhere.matches] == []
    confident = await memory.QueryMatchingHeuristics(
        memory_pb2.QueryMatchingHeuristicsRequest(event_text="the plants need watering", min_confidence=0.9)
    )
    assert "h-plants" not in [m.heuristic.id for m in confident.matches]


async def test_a_query_by_text_and_by_the_model_s_own_vector_agree(memory: memory_pb2_grpc.MemoryStorageStub) -> None:
    await _store(memory, _heuristic("h-oven", "the oven was left on", "turn off the oven", source=""))
    embedded = await memory.GenerateEmbedding(memory_pb2.GenerateEmbeddingRequest(text="someone left the oven on"))
    vector = np.frombuffer(embedded.embedding, dtype="<f4")
    assert vector.shape == (384,) and float(np.linalg.norm(vector)) == pytest.approx(1.0, abs=1e-3)
    by_text = await memory.QueryHeuristics(
        memory_pb2.QueryHeuristicsRequest(query_text="someone left the oven on", limit=3)
    )
    by_vector = await memory.QueryHeuristics(
        memory_pb2.QueryHeuristicsRequest(
            query_text="someone left the oven on", query_embedding=embedded.embedding, limit=3
        )
    )
    assert by_text.matches[0].heuristic.id == by_vector.matches[0].heuristic.id == "h-oven"
    assert by_text.matches[0].similarity == pytest.approx(by_vector.matches[0].similarity, abs=1e-4)


async def test_pending_and_listed_fires_follow_their_outcomes(memory: memory_pb2_grpc.MemoryStorageStub) -> None:
    heuristic_id = await _store(memory, _heuristic("h-mail", "a parcel was delivered", "tell the user"))
    fired = await memory.RecordHeuristicFire(
        memory_pb2.RecordHeuristicFireRequest(heuristic_id=heuristic_id, event_id="parcel-1")
    )
    again = await memory.RecordHeuristicFire(
        memory_pb2.RecordHeuristicFireRequest(heuristic_id=heuristic_id, event_id="parcel-1")
    )
    assert again.fire_id == fired.fire_id  # one fire per heuristic and event
    pending = await memory.GetPendingFires(
        memory_pb2.GetPendingFiresRequest(heuristic_id=heuristic_id, max_age_seconds=300)
    )
    assert [(f.id, f.outcome, f.event_id) for f in pending.fires] == [(fired.fire_id, "unknown", "parcel-1")]
    assert (pending.fires[0].condition_text, pending.fires[0].confidence) == ("a parcel was delivered", 0.5)
    await memory.UpdateFireOutcome(
        memory_pb2.UpdateFireOutcomeRequest(fire_id=fired.fire_id, outcome="fail", feedback_source="implicit_undo")
    )
    pending = await memory.GetPendingFires(memory_pb2.GetPendingFiresRequest(heuristic_id=heuristic_id))
    assert list(pending.fires) == []
    pending_all = await memory.ListFires(memory_pb2.ListFiresRequest(outcome="pending", limit=100))  # GLADyS's word
    assert fired.fire_id not in {f.id for f in pending_all.fires}
    failed = await memory.ListFires(memory_pb2.ListFiresRequest(outcome="fail", limit=10))
    (listed,) = [f for f in failed.fires if f.id == fired.fire_id]
    assert (listed.heuristic_name, listed.condition_text, listed.feedback_source) == (
        "",
        "a parcel was delivered",
        "implicit_undo",
    )
    assert listed.confidence == pytest.approx(0.5) and failed.total_count >= 1  # an outcome moves no confidence


async def test_one_learner_the_orchestrator_s_fire_and_the_executive_s_are_one(
    gladys: Gladys, memory: memory_pb2_grpc.MemoryStorageStub
) -> None:
    """GLADyS's orchestrator records the fire of the heuristic it matched, then phronesis's executive
    fires it: one fire, counted once. A later "undo that" from the source is the orchestrator's to
    send as a signal; phronesis does not count it again."""
    heuristic_id = await _store(
        memory, _heuristic("h-blinds", "the sun is glaring on the screen", "lower the blinds", confidence=0.9)
    )
    fired = await memory.RecordHeuristicFire(
        memory_pb2.RecordHeuristicFireRequest(heuristic_id=heuristic_id, event_id="glare-1")
    )
    async with grpc.aio.insecure_channel(gladys.executive) as channel:
        executive = executive_pb2_grpc.ExecutiveServiceStub(channel)
        suggestion = executive_pb2.HeuristicSuggestion(
            heuristic_id=heuristic_id, suggested_action="lower the blinds", confidence=0.9
        )
        event = common_pb2.Event(id="glare-1", source="home", raw_text="the sun is glaring on my screen")
        decided = await executive.ProcessEvent(
            executive_pb2.ProcessEventRequest(event=event, suggestion=suggestion, immediate=True)
        )
        assert decided.matched_heuristic_id == heuristic_id
        undo = common_pb2.Event(id="glare-2", source="home", raw_text="no, undo that")
        await executive.ProcessEvent(executive_pb2.ProcessEventRequest(event=undo, immediate=True))
    got = (await memory.GetHeuristic(memory_pb2.GetHeuristicRequest(id=heuristic_id))).heuristic
    assert (got.fire_count, got.confidence) == (1, pytest.approx(0.9))
    listed = await memory.ListFires(memory_pb2.ListFiresRequest(limit=100))
    assert [f.id for f in listed.fires if f.heuristic_id == heuristic_id] == [fired.fire_id]


async def test_with_phronesis_as_the_learner_a_fire_nobody_complains_of_is_a_success(tmp_path: Path) -> None:
    """``PHRONESIS_GLADYS__LEARNER=phronesis``: the orchestrator's learning is off, and phronesis's
    seed-001 learner counts the outcome timeout on the clock (a fire with no complaint in the window)."""
    variables = {
        "PHRONESIS_GLADYS__LEARNER": "phronesis",
        "PHRONESIS_LEARNING__UNDO_WINDOW_SEC": "1",
        "PHRONESIS_LEARNING__SWEEP_INTERVAL_SEC": "0.2",
    }
    with running(tmp_path, **variables) as served:
        async with grpc.aio.insecure_channel(served.memory) as channel:
            memory = memory_pb2_grpc.MemoryStorageStub(channel)
            heuristic_id = await _store(memory, _heuristic("h-fan", "the bedroom is stuffy", "open the window"))
            await memory.RecordHeuristicFire(
                memory_pb2.RecordHeuristicFireRequest(heuristic_id=heuristic_id, event_id="fan-1")
            )
            deadline = time.monotonic() + 30
            while (
                got := await memory.GetHeuristic(memory_pb2.GetHeuristicRequest(id=heuristic_id))
            ).heuristic.confidence <= 0.5:
                assert time.monotonic() < deadline, "no timeout positive within 30 s"
                await asyncio.sleep(0.2)
    assert got.heuristic.confidence > 0.5


async def test_the_status_codes_are_what_gladys_expects(memory: memory_pb2_grpc.MemoryStorageStub) -> None:
    assert await _refused(
        memory.GetHeuristic(memory_pb2.GetHeuristicRequest(id="no-such")), grpc.StatusCode.NOT_FOUND
    ) == ("heuristic 'no-such' not found")
    await _refused(
        memory.UpdateHeuristicConfidence(
            memory_pb2.UpdateHeuristicConfidenceRequest(heuristic_id="no-such", positive=True)
        ),
        grpc.StatusCode.NOT_FOUND,
    )
    await _refused(
        memory.RecordHeuristicFire(memory_pb2.RecordHeuristicFireRequest(heuristic_id="no-such", event_id="e")),
        grpc.StatusCode.NOT_FOUND,
    )
    await _refused(
        memory.UpdateFireOutcome(memory_pb2.UpdateFireOutcomeRequest(fire_id="no-such", outcome="success")),
        grpc.StatusCode.NOT_FOUND,
    )
    await _refused(
        memory.GetPendingFires(memory_pb2.GetPendingFiresRequest(heuristic_id="no-such")), grpc.StatusCode.NOT_FOUND
    )
    said = await _refused(
        memory.UpdateHeuristicConfidence(
            memory_pb2.UpdateHeuristicConfidenceRequest(heuristic_id="h-door", positive=True, predicted_success=2.0)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert said.startswith("predicted_success: must be between 0 and 1")
    not_json = _heuristic("h-bad", "it rains", "x")
    not_json.effects_json = "{suggest"
    said = await _refused(
        memory.StoreHeuristic(memory_pb2.StoreHeuristicRequest(heuristic=not_json)), grpc.StatusCode.INVALID_ARGUMENT
    )
    assert said.startswith("heuristic.effects_json: is not JSON")
    no_condition = _heuristic("h-bad", "", "take an umbrella")
    said = await _refused(
        memory.StoreHeuristic(memory_pb2.StoreHeuristicRequest(heuristic=no_condition)),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert said.startswith("heuristic.condition_text: ")
    said = await _refused(memory.GetHeuristic(memory_pb2.GetHeuristicRequest()), grpc.StatusCode.INVALID_ARGUMENT)
    assert said == "id: is required"
    said = await _refused(
        memory.UpdateFireOutcome(memory_pb2.UpdateFireOutcomeRequest(fire_id="f", outcome="maybe")),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert said.startswith("outcome: must be one of success, fail, unknown")
    said = await _refused(
        memory.UpdateHeuristicConfidence(
            memory_pb2.UpdateHeuristicConfidenceRequest(
                heuristic_id="h-door", positive=True, feedback_source="Bad Source!"
            )
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert said.startswith("feedback_source: ")
    said = await _refused(
        memory.QueryHeuristics(memory_pb2.QueryHeuristicsRequest(query_embedding=b"\x00" * 12)),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert said.startswith("query_embedding: must be 384 little-endian float32 values")
    said = await _refused(
        memory.GenerateEmbedding(memory_pb2.GenerateEmbeddingRequest(text=" ")), grpc.StatusCode.INVALID_ARGUMENT
    )
    assert said == "text: is required"


async def test_the_calls_phronesis_does_not_serve_say_what_it_does(channel: grpc.aio.Channel) -> None:
    """GLADyS's memory service has episodic, entity and response calls too: each is UNIMPLEMENTED,
    naming the calls phronesis serves (an empty request is a valid message of any type)."""
    for method in ("StoreEvent", "QueryByTime", "StoreEntity", "ListResponses"):
        call = channel.unary_unary(
            f"/gladys.memory.MemoryStorage/{method}", request_serializer=None, response_deserializer=None
        )
        said = await _refused(call(b""), grpc.StatusCode.UNIMPLEMENTED)
        assert said.startswith(
            f"phronesis does not serve gladys.memory.MemoryStorage/{method}: it serves the heuristic calls ("
        )
        assert "StoreHeuristic" in said and "QueryMatchingHeuristics" in said


async def test_health_is_the_readiness_check(memory: memory_pb2_grpc.MemoryStorageStub) -> None:
    health = await memory.GetHealth(types_pb2.GetHealthRequest())
    assert (health.status, health.message) == (types_pb2.HEALTH_STATUS_HEALTHY, "")
    details = await memory.GetHealthDetails(types_pb2.GetHealthDetailsRequest())
    assert details.details["embedder"] == "ok" and details.details["tenant"] == "default"
