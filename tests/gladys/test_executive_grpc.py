"""GLADyS's executive over its own gRPC wire, against a real ``phronesis grpc`` process on loopback,
with ``grpc.aio`` clients as GLADyS's orchestrator calls it: the stories its integration scripts
tell (an event processed, then rated) and the status codes its callers expect."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest

from phronesis.gladys.wire import common_pb2, executive_pb2, executive_pb2_grpc, types_pb2
from tests.loopback import free_port
from tests.processes import phronesis_env

pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``phronesis grpc`` on a free loopback port until the module's tests end."""
    port = free_port()
    data_dir: Path = tmp_path_factory.mktemp("gladys")
    process = subprocess.Popen(
        [sys.executable, "-m", "phronesis", "grpc", "--executive-port", str(port)],
        env=phronesis_env(data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout or ()), daemon=True)
    reader.start()
    target = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while not any("ExecutiveService on" in line for line in lines):
            if process.poll() is not None or time.monotonic() > deadline:
                reader.join(timeout=5)
                raise RuntimeError("phronesis grpc did not start:\n" + "".join(lines))
            time.sleep(0.2)
        yield target
    finally:
        process.terminate()
        process.wait(timeout=30)
        reader.join(timeout=5)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
async def executive(address: str) -> AsyncIterator[executive_pb2_grpc.ExecutiveServiceStub]:
    async with grpc.aio.insecure_channel(address) as channel:
        yield executive_pb2_grpc.ExecutiveServiceStub(channel)


def _event(text: str, event_id: str, **fields: object) -> executive_pb2.ProcessEventRequest:
    return executive_pb2.ProcessEventRequest(
        event=common_pb2.Event(id=event_id, source="home", raw_text=text), immediate=True, **fields  # type: ignore[arg-type]
    )


async def test_an_event_with_glady_s_suggestion_fires_it_and_its_rating_is_taken(
    executive: executive_pb2_grpc.ExecutiveServiceStub,
) -> None:
    """GLADyS sends the heuristic it matched without a similarity and without its condition."""
    suggestion = executive_pb2.HeuristicSuggestion(
        heuristic_id="h-hall", suggested_action="turn on the hall light", confidence=0.9
    )
    decided = await executive.ProcessEvent(
        _event("the hall is dark", "ev-1", suggestion=suggestion), metadata=(("x-gladys-trace-id", "t-1"),)
    )
    assert (decided.accepted, decided.decision_path, decided.matched_heuristic_id) == (True, "heuristic", "h-hall")
    assert decided.response_text == "turn on the hall light" and decided.error_message == ""
    assert decided.predicted_success == pytest.approx(0.9)
    rated = await executive.ProvideFeedback(
        executive_pb2.ProvideFeedbackRequest(event_id="ev-1", response_id=decided.response_id, positive=True)
    )
    assert rated.accepted and rated.created_heuristic_id == ""


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
    assert (empty.value.details() or "").startswith("text: ")


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
