"""phronesis's MCP tools (issue 26), called through the SDK's own client on an in-process server
over the engine: each tool answers as its ``/v1`` endpoint does, refuses bad input naming the
field, and every call is recorded for the tenant it acts for."""

from __future__ import annotations

import json
from typing import Any

from mcp import Client
from mcp_types import CallToolResult

from phronesis.admission.models import RunIn
from phronesis.engine import Engine
from phronesis.executive.events import EventRequest
from phronesis.mcp import build_server, fixed_tenant
from phronesis.routing.models import RouteRequest
from phronesis.routing.tools import ToolIn
from tests.engines import add_heuristic

TOOLS = {
    "decide_event",
    "observe_event",
    "give_feedback",
    "route_turn",
    "admit_run",
    "search_runs",
    "match_heuristics",
    "preview_proactive",
}


def _ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def _refused(result: CallToolResult) -> str:
    assert result.is_error
    return " ".join(getattr(part, "text", "") for part in result.content)


async def test_every_tool_is_described_for_the_llm_that_chooses_it(engine: Engine) -> None:
    async with Client(build_server(engine, fixed_tenant("default"))) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.description and len(tool.description) > 80, tool.name
            assert "\n    " not in tool.description, tool.description  # no source indentation for the LLM
            properties = tool.input_schema["properties"]
            undescribed = [name for name, schema in properties.items() if not schema.get("description")]
            assert undescribed == [], (tool.name, undescribed)
            assert tool.output_schema is not None, tool.name  # structured output: the API's own models
        assert tools["search_runs"].annotations is not None and tools["search_runs"].annotations.read_only_hint


async def test_decide_rate_and_read_the_record_of_a_heuristic_fire(engine: Engine) -> None:
    """An event a confident heuristic matches fires it without an LLM; the rating moves its
    confidence; the decision record is a resource; a second rating is refused, as over HTTP."""
    heuristic = await add_heuristic(engine, "the greenhouse door is open", "close the greenhouse door", 0.9)
    async with Client(build_server(engine, fixed_tenant("default"))) as client:
        decided = _ok(await client.call_tool("decide_event", {"text": "the greenhouse door is open"}))
        assert (decided["decision_path"], decided["matched_heuristic_id"]) == ("heuristic", heuristic.id)
        assert decided["response_text"] == "close the greenhouse door"
        rated = _ok(
            await client.call_tool("give_feedback", {"response_id": decided["response_id"], "rating": "positive"})
        )
        assert rated["heuristic_id"] == heuristic.id
        again = _refused(
            await client.call_tool("give_feedback", {"response_id": decided["response_id"], "rating": "positive"})
        )
        assert again.startswith("Error executing tool give_feedback: rating: the same click twice: "), again
        record = await client.read_resource(f"phronesis://decisions/{decided['response_id']}")
        body = json.loads(getattr(record.contents[0], "text", ""))
        assert (body["kind"], body["path"], body["outcome"]) == ("executive", "heuristic", "positive")
        matched = _ok(await client.call_tool("match_heuristics", {"text": "the greenhouse door is open", "k": 3}))
        assert matched["matches"][0]["heuristic"]["id"] == heuristic.id
    stored = await engine.decisions.get("default", decided["response_id"])
    assert stored.outcome == "positive"


async def test_bad_input_is_a_tool_error_naming_the_field_and_nothing_is_written(engine: Engine) -> None:
    async with Client(build_server(engine, fixed_tenant("default"))) as client:
        assert _refused(await client.call_tool("decide_event", {"text": "  "})).endswith(
            "text: String should have at least 1 character"
        )
        # one line naming the argument, never a pydantic dump; an unknown argument is refused, not dropped
        for tool, arguments, said in (
            ("decide_event", {"text": "x", "urgency": 2}, "urgency: 2 is greater than the maximum of 1"),
            ("decide_event", {"text": "x", "strategy": "fastest"}, "strategy: 'fastest' is not one of"),
            ("decide_event", {"text": "x", "stratgy": "always_llm"}, "stratgy: decide_event takes no such argument"),
            ("admit_run", {"task": "t", "outcome": "great"}, "outcome: 'great' is not one of"),
            ("search_runs", {"q": "tls"}, "q: search_runs takes no such argument (it takes query,"),
            ("search_runs", {"query": "tls", "k": 0}, "k: 0 is less than the minimum of 1"),
            ("match_heuristics", {"text": "x", "k": "five"}, "k: 'five' is not an integer"),
            ("preview_proactive", {"user_id": "ana", "at": "tomorrow"}, "at: Input should be a valid datetime"),
            ("give_feedback", {"response_id": "r1", "rating": "positive", "user_score": 2}, "rating: give exactly one"),
            ("give_feedback", {"response_id": "r1"}, "rating: give exactly one of rating or user_score"),
        ):
            refused = _refused(await client.call_tool(tool, arguments))
            assert refused.startswith(f"Error executing tool {tool}: {said}"), (tool, refused)
            assert "\n" not in refused and "pydantic" not in refused, (tool, refused)
        missing = await client.call_tool("give_feedback", {"response_id": "nope", "rating": "positive"})
        assert "not found" in _refused(missing)
    assert await engine.decisions.query("default", limit=10) == []


async def test_a_conversation_routes_turn_by_turn_in_one_session(engine: Engine) -> None:
    async with Client(build_server(engine, fixed_tenant("default"))) as client:
        first = _ok(await client.call_tool("route_turn", {"query": "What is your refund policy for annual plans?"}))
        session = first["session_id"]
        assert first["decision"] in {"RETRIEVE", "REASON_ONLY", "USE_TOOL", "CLARIFY", "ESCALATE"}
        second = _ok(await client.call_tool("route_turn", {"query": "And for monthly ones?", "session_id": session}))
        assert second["session_id"] == session
    assert (await engine.routing.session("default", session)).message_count >= 2


async def test_runs_are_admitted_then_recalled_and_a_resend_is_not_stored_twice(engine: Engine) -> None:
    run = {"task": "renew the TLS certificate of the billing API", "outcome": "success", "summary": "renewed it"}
    async with Client(build_server(engine, fixed_tenant("default"))) as client:
        added = _ok(await client.call_tool("admit_run", run))
        assert added["decision"] == "ADD"
        again = _ok(await client.call_tool("admit_run", run))
        assert again["decision"] == "NOT"
        # the hashing embedder's similarities are not the model's: no floor here
        asked = {"query": "renew the TLS certificate", "k": 3, "min_similarity": -1.0}
        hits = _ok(await client.call_tool("search_runs", asked))
        assert [hit["run"]["id"] for hit in hits["hits"]] == [added["run_id"]]


async def test_tools_act_for_their_tenant_only(engine: Engine) -> None:
    await add_heuristic(engine, "the greenhouse door is open", "close the greenhouse door", 0.9)
    async with Client(build_server(engine, fixed_tenant("other"))) as client:
        matched = _ok(await client.call_tool("match_heuristics", {"text": "the greenhouse door is open"}))
        assert matched["matches"] == []
        decided = _ok(await client.call_tool("decide_event", {"text": "the greenhouse door is open"}))
        assert decided["decision_path"] == "rejected"
        own = _ok(await client.call_tool("decide_event", {"text": "a door", "strategy": "urgency_tiered"}))
        assert own["strategy"] == "urgency_tiered"
        observed = _ok(await client.call_tool("observe_event", {"text": "the door opened", "event_id": "e-1"}))
        assert observed["event_id"] == "e-1"
        preview = await client.call_tool("preview_proactive", {"user_id": "nobody"})
        assert "not found" in _refused(preview)
    assert (await engine.decisions.get("other", decided["response_id"])).tenant == "other"


async def test_the_tools_take_every_argument_their_http_endpoints_take(engine: Engine) -> None:
    """Issue 47, item 11: ``route_turn`` refused ``tool_arguments``, ``decide_event`` had no
    ``salience`` (no emergency path) and ``admit_run`` no references or artifacts."""
    bodies = {"decide_event": EventRequest, "route_turn": RouteRequest, "admit_run": RunIn}
    async with Client(build_server(engine, fixed_tenant("default"))) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name, body in bodies.items():
            missing = set(body.model_fields) - set(tools[name].input_schema["properties"])
            assert missing == set(), (name, missing)
        assert "lead_context" in tools["route_turn"].input_schema["properties"]


async def test_a_tool_call_is_finished_over_mcp(engine: Engine) -> None:
    """An agent over MCP answers the router's own question with the arguments it has, and the call
    completes (issue 47: the answer escalated, and the MCP tool could not pass the arguments)."""
    await engine.routing.put_tool(
        "default",
        ToolIn(
            name="calendar",
            description="Book, reschedule or cancel meetings and demos",
            examples=["book a meeting with sales", "schedule a demo call"],
            parameters={"type": "object", "required": ["email", "time"], "properties": {
                "email": {"type": "string", "format": "email"}, "time": {"type": "string", "format": "date-time"}}},
        ),
    )  # fmt: skip
    async with Client(build_server(engine, fixed_tenant("default"))) as client:
        lead = {"email": "ann@example.com", "timezone": "UTC"}
        asked = _ok(await client.call_tool("route_turn", {"query": "schedule a demo call", "lead_context": lead}))
        assert (asked["decision"], asked["pending"]["tool"]) == ("CLARIFY", "calendar")
        args = {"calendar": {"time": "2026-01-08T14:00:00+00:00"}}
        done = _ok(
            await client.call_tool(
                "route_turn", {"query": "Thursday works", "session_id": asked["session_id"], "tool_arguments": args}
            )
        )
        assert (done["decision"], done["tool_arguments"]["calendar"]["time"]) == ("USE_TOOL", args["calendar"]["time"])
        refused = _refused(
            await client.call_tool(
                "route_turn", {"query": "hi", "session_id": asked["session_id"], "lead_context": lead}
            )
        )
        assert "lead_context" in refused
