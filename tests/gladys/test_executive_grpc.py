"""GLADyS's executive over its own gRPC wire, against a real ``phronesis grpc`` process on loopback,
with ``grpc.aio`` clients as GLADyS's orchestrator calls it: the stories its integration scripts
tell (an event processed, then rated) and the status codes its callers expect."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator

import grpc
import pytest

from phronesis.gladys.wire import common_pb2, executive_pb2, executive_pb2_grpc, memory_pb2, memory_pb2_grpc, types_pb2
from tests.gladys.conftest import Gladys

pytestmark = [pytest.mark.process, pytest.mark.model]


@pytest.fixture
async def executive(gladys: Gladys) -> AsyncIterator[executive_pb2_grpc.ExecutiveServiceStub]:
    async with grpc.aio.insecure_channel(gladys.executive) as channel:
        yield executive_pb2_grpc.ExecutiveServiceStub(channel)


@pytest.fixture
async def memory(gladys: Gladys) -> AsyncIterator[memory_pb2_grpc.MemoryStorageStub]:
    async with grpc.aio.insecure_channel(gladys.memory) as channel:
        yield memory_pb2_grpc.MemoryStorageStub(channel)


async def _store(memory: memory_pb2_grpc.MemoryStorageStub, heuristic_id: str, condition: str, action: str) -> None:
    effects = json.dumps({"type": "suggest", "message": action})
    given = memory_pb2.Heuristic(
        id=heuristic_id, condition_text=condition, effects_json=effects, confidence=0.9, origin="test", source="home"
    )
    stored = await memory.StoreHeuristic(memory_pb2.StoreHeuristicRequest(heuristic=given))
    assert stored.success and stored.heuristic_id == heuristic_id


def _event(text: str, event_id: str, **fields: object) -> executive_pb2.ProcessEventRequest:
    return executive_pb2.ProcessEventRequest(
        event=common_pb2.Event(id=event_id, source="home", raw_text=text),
        immediate=True,
        **fields,  # type: ignore[arg-type]
    )


async def test_an_event_with_glady_s_suggestion_fires_it_and_its_rating_is_taken(
    gladys: Gladys,
    executive: executive_pb2_grpc.ExecutiveServiceStub,
    memory: memory_pb2_grpc.MemoryStorageStub,
) -> None:
    """GLADyS sends the heuristic its memory (phronesis) matched, without a similarity and without
    its condition; its trace id reaches the decision record."""
    await _store(memory, "h-hall", "the hall is dark", "turn on the hall light")
    suggestion = executive_pb2.HeuristicSuggestion(
        heuristic_id="h-hall", suggested_action="turn on the hall light", confidence=0.9
    )
    decided = await executive.ProcessEvent(
        _event("the hallway is dark", "ev-1", suggestion=suggestion), metadata=(("x-gladys-trace-id", "t-1"),)
    )
    assert (decided.accepted, decided.decision_path, decided.matched_heuristic_id) == (True, "heuristic", "h-hall")
    assert decided.response_text == "turn on the hall light" and decided.error_message == ""
    assert decided.predicted_success == pytest.approx(0.9)
    rated = await executive.ProvideFeedback(
        executive_pb2.ProvideFeedbackRequest(event_id="ev-1", response_id=decided.response_id, positive=True)
    )
    assert rated.accepted and rated.created_heuristic_id == ""
    with sqlite3.connect(gladys.database) as db:
        (attributes,) = db.execute(
            "SELECT attributes FROM decision_records WHERE id = ?", (decided.response_id,)
        ).fetchone()
    assert json.loads(attributes)["caller_trace_id"] == "t-1"


async def test_a_suggestion_for_the_opposite_situation_does_not_fire(
    gladys: Gladys,
    executive: executive_pb2_grpc.ExecutiveServiceStub,
    memory: memory_pb2_grpc.MemoryStorageStub,
) -> None:
    """The story: GLADyS's memory matched "the living room is too cold" for "the living room is too
    warm" (0.8 similar to the sentence model) and suggested raising the thermostat. Each suggestion is
    held to phronesis's own judgement of the match, so it is set aside, and says why in the log."""
    await _store(memory, "h-cold", "the living room is too cold", "raise the thermostat")
    suggestion = executive_pb2.HeuristicSuggestion(
        heuristic_id="h-cold", suggested_action="raise the thermostat", confidence=0.9
    )
    decided = await executive.ProcessEvent(_event("the living room is too warm", "ev-warm", suggestion=suggestion))
    assert decided.matched_heuristic_id != "h-cold" and decided.response_text != "raise the thermostat"
    assert (decided.accepted, decided.error_message) == (False, "llm_unavailable")
    assert any("h-cold (opposite: " in line for line in gladys.log)
    with sqlite3.connect(gladys.database) as db:
        (attributes,) = db.execute(
            "SELECT attributes FROM decision_records WHERE id = ?", (decided.response_id,)
        ).fetchone()
    (aside,) = json.loads(attributes)["candidates_set_aside"]  # on the record, with why
    assert aside["heuristic_id"] == "h-cold" and aside["why"].startswith("opposite: ")
    similarity = float(aside["why"].rsplit("similarity ", 1)[1])  # the cosine the model gave, not a sentinel
    assert 0.7 <= similarity <= 1.0
    unknown = executive_pb2.HeuristicSuggestion(
        heuristic_id="h-elsewhere",
        condition_text="the kitchen is too cold",
        suggested_action="raise the thermostat",
        confidence=0.9,
    )  # one phronesis does not hold: judged on the condition sent
    decided = await executive.ProcessEvent(_event("the kitchen is too warm", "ev-warm-2", candidates=[unknown]))
    assert decided.matched_heuristic_id != "h-elsewhere" and not decided.accepted


async def test_an_event_nothing_answers_is_not_accepted_and_says_why(
    executive: executive_pb2_grpc.ExecutiveServiceStub,
) -> None:
    decided = await executive.ProcessEvent(_event("the cellar smells of gas", "ev-2"))
    assert (decided.accepted, decided.decision_path) == (False, "rejected")
    assert decided.error_message == "llm_unavailable" and decided.response_id


async def test_the_status_codes_are_what_gladys_expects(executive: executive_pb2_grpc.ExecutiveServiceStub) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as unknown:
        await executive.ProvideFeedback(executive_pb2.ProvideFeedbackRequest(response_id="no-such", positive=True))
    assert unknown.value.code() is grpc.StatusCode.NOT_FOUND
    assert unknown.value.details() == "decision or fire 'no-such' not found"
    with pytest.raises(grpc.aio.AioRpcError) as unnamed:
        await executive.ProvideFeedback(executive_pb2.ProvideFeedbackRequest(event_id="ev-9", positive=True))
    assert unnamed.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert (unnamed.value.details() or "").startswith("response_id: ")
    with pytest.raises(grpc.aio.AioRpcError) as empty:
        await executive.ProcessEvent(_event("", "ev-3"))
    assert empty.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert (empty.value.details() or "").startswith("event.raw_text: ")  # named as GLADyS sent it
    sure = executive_pb2.HeuristicSuggestion(heuristic_id="h-x", suggested_action="x", confidence=3.0)
    with pytest.raises(grpc.aio.AioRpcError) as unsure:
        await executive.ProcessEvent(_event("the hall is dark", "ev-4", suggestion=sure))
    assert unsure.value.details() == "suggestion.confidence: must be between 0 and 1"


async def test_a_call_this_port_does_not_serve_says_what_it_serves_and_where(gladys: Gladys) -> None:
    """gRPC's own "Method not found!" names nothing: a call sent to the wrong port is told where to go."""
    async with grpc.aio.insecure_channel(gladys.executive) as channel:
        for method, said in (
            ("/gladys.v1.ExecutiveService/Reflect", "phronesis does not serve gladys.v1.ExecutiveService/Reflect: "
             "it serves ProcessEvent, ProvideFeedback, GetHealth, GetHealthDetails"),
            ("/gladys.memory.MemoryStorage/StoreHeuristic",
             f"gladys.memory.MemoryStorage is served on {gladys.memory}, "
             "not on this port (gladys.v1.ExecutiveService)"),
            ("/gladys.v1.SalienceGateway/EvaluateSalience",
             "phronesis serves gladys.v1.ExecutiveService on this port, not gladys.v1.SalienceGateway"),
        ):  # fmt: skip
            call = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call(b"")
            assert (refused.value.code(), refused.value.details()) == (grpc.StatusCode.UNIMPLEMENTED, said)


async def test_a_trace_id_in_the_request_s_metadata_is_taken_where_no_header_is_sent(
    gladys: Gladys, executive: executive_pb2_grpc.ExecutiveServiceStub
) -> None:
    request = _event("the cellar smells of damp", "ev-5")
    request.metadata.CopyFrom(common_pb2.RequestMetadata(trace_id="t-meta", request_id="r-meta"))
    decided = await executive.ProcessEvent(request)
    with sqlite3.connect(gladys.database) as db:
        (attributes,) = db.execute(
            "SELECT attributes FROM decision_records WHERE id = ?", (decided.response_id,)
        ).fetchone()
    assert (json.loads(attributes)["caller_trace_id"], json.loads(attributes)["request_id"]) == ("t-meta", "r-meta")


async def test_health_is_the_readiness_check(executive: executive_pb2_grpc.ExecutiveServiceStub) -> None:
    health = await executive.GetHealth(types_pb2.GetHealthRequest())
    assert (health.status, health.message) == (types_pb2.HEALTH_STATUS_HEALTHY, "")
    details = await executive.GetHealthDetails(types_pb2.GetHealthDetailsRequest())
    assert details.status == types_pb2.HEALTH_STATUS_HEALTHY and details.uptime_seconds >= 0
    assert (details.details["database"], details.details["embedder"], details.details["tenant"]) == (
        "ok",
        "ok",
        "default",
    )
