"""The GLADyS wire: phronesis's ``.proto`` files say GLADyS's names and numbers, and the generated
code is what they say (``tools/generate_gladys_wire.py``)."""

from __future__ import annotations

import importlib

import pytest

from phronesis.gladys.wire import common_pb2, executive_pb2, memory_pb2, types_pb2


@pytest.mark.process  # protoc and mypy-protobuf's plugins run as processes
def test_the_generated_code_is_current() -> None:
    generate = importlib.import_module("tools.generate_gladys_wire")
    assert generate.main(["--check"]) == 0, "run python -m tools.generate_gladys_wire"


def _fields(message: type) -> dict[str, tuple[int, int]]:
    """A message's fields: name → (number, wire type), what a caller's bytes are read by."""
    return {f.name: (f.number, f.type) for f in message.DESCRIPTOR.fields}  # type: ignore[attr-defined]


def test_services_and_methods_have_gladys_names() -> None:
    executive = executive_pb2.DESCRIPTOR.services_by_name["ExecutiveService"]
    assert executive.full_name == "gladys.v1.ExecutiveService"
    assert [m.name for m in executive.methods] == ["ProcessEvent", "ProvideFeedback", "GetHealth", "GetHealthDetails"]
    memory = memory_pb2.DESCRIPTOR.services_by_name["MemoryStorage"]
    assert memory.full_name == "gladys.memory.MemoryStorage"
    assert types_pb2.GetHealthRequest.DESCRIPTOR.full_name == "gladys.types.GetHealthRequest"


def test_the_messages_gladys_sends_keep_its_field_numbers() -> None:
    """Field numbers and types as GLADyS's own .proto files give them (its orchestrator's bytes)."""
    string, boolean, message, float_, int64 = 9, 8, 11, 2, 3
    assert _fields(executive_pb2.ProcessEventRequest) == {
        "event": (1, message),
        "immediate": (2, boolean),
        "suggestion": (3, message),
        "candidates": (4, message),
        "metadata": (15, message),
    }
    assert _fields(executive_pb2.HeuristicSuggestion) == {
        "heuristic_id": (1, string),
        "suggested_action": (2, string),
        "confidence": (3, float_),
        "condition_text": (4, string),
    }
    answer = _fields(executive_pb2.ProcessEventResponse)
    assert [answer[n][0] for n in ("accepted", "error_message", "response_id", "decision_path")] == [1, 2, 3, 8]
    event = _fields(common_pb2.Event)
    assert (event["id"], event["source"], event["raw_text"], event["salience"]) == (
        (1, string),
        (3, string),
        (4, string),
        (6, message),
    )
    assert _fields(executive_pb2.ProvideFeedbackRequest) == {
        "event_id": (1, string),
        "positive": (2, boolean),
        "response_id": (3, string),
        "metadata": (15, message),
    }
    assert _fields(common_pb2.RequestMetadata)["timestamp_ms"] == (4, int64)
