"""MCP over streamable HTTP at the server's ``/mcp`` (issue 26), through the SDK's own client and
its transport: the API's keys decide the tenant each call acts for, a request without a key is
refused before any MCP message is read, as ``/v1`` refuses it."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

from tests.api.conftest import API_KEY, OTHER_KEY, LiveServer
from tests.doc_blocks import MCP_CLIENT, run_doc_python


@contextlib.asynccontextmanager
async def _client(server: LiveServer, key: str) -> AsyncIterator[Client]:
    """The SDK's client on its streamable HTTP transport, sending the API key with every request."""
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{server.base_url}/mcp", http_client=http)) as client,
    ):
        yield client


def _ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def test_tools_over_http_act_for_the_tenant_of_the_key(live_server: LiveServer, unique: str) -> None:
    condition = f"the loft {unique} hatch is open"
    with live_server.client() as rest:
        created = rest.post(
            "/v1/heuristics", json={"condition_text": condition, "action_text": "close the hatch", "confidence": 0.9}
        )
        created.raise_for_status()
    async with _client(live_server, API_KEY) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"decide_event", "route_turn", "admit_run", "search_runs", "match_heuristics"} <= names
        decided = _ok(await client.call_tool("decide_event", {"text": condition}))
        assert (decided["decision_path"], decided["matched_heuristic_id"]) == ("heuristic", created.json()["id"])
        record = await client.read_resource(f"phronesis://decisions/{decided['response_id']}")
        assert json.loads(getattr(record.contents[0], "text", ""))["tenant"] == "tenant-a"
    async with _client(live_server, OTHER_KEY) as other:
        matched = _ok(await other.call_tool("match_heuristics", {"text": condition}))
        assert matched["matches"] == []  # tenant-b has no such heuristic
        with pytest.raises(MCPError, match="not found"):
            await other.read_resource(f"phronesis://decisions/{decided['response_id']}")
    with live_server.client() as rest:  # the MCP call's record is the REST API's record
        assert rest.get(f"/v1/decisions/{decided['response_id']}").json()["path"] == "heuristic"
    with live_server.client(OTHER_KEY) as rest:
        assert rest.get(f"/v1/decisions/{decided['response_id']}").status_code == 404


def test_mcp_without_a_valid_key_is_a_401_problem(live_server: LiveServer) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers, detail in (
        ({}, "an API key is required"),
        ({"Authorization": "Bearer sk-wrong"}, "unknown API key"),
        ({"Authorization": "Basic abc"}, "Authorization must be 'Bearer <api key>'"),
    ):
        refused = httpx.post(
            f"{live_server.base_url}/mcp",
            json=hello,
            headers=headers | {"Accept": "application/json, text/event-stream"},
            timeout=10,
        )
        assert refused.status_code == 401, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.headers["www-authenticate"].startswith("Bearer")
        assert refused.json()["detail"].startswith(detail), refused.text


def test_a_get_on_mcp_says_what_it_is_instead_of_hanging(live_server: LiveServer) -> None:
    """A browser or curl opening /mcp waited forever on an event stream (a trial)."""
    answered = httpx.get(f"{live_server.base_url}/mcp", timeout=5)
    assert answered.status_code == 405 and answered.headers["allow"] == "POST, DELETE"
    assert "MCP endpoint" in answered.json()["detail"]


def test_the_docs_mcp_example_runs_as_printed(
    live_server: LiveServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trial's copy of the example failed on its placeholder key: it must not rot."""
    monkeypatch.setenv("PHRONESIS_API_KEY", API_KEY)
    run_doc_python(*MCP_CLIENT, replace=("http://127.0.0.1:8000/mcp", f"{live_server.base_url}/mcp"))
    tools, turn = capsys.readouterr().out.splitlines()[:2]
    assert "decide_event" in tools and "route_turn" in tools
    decision, session = turn.split()
    assert decision in {"RETRIEVE", "REASON_ONLY", "USE_TOOL", "CLARIFY", "ESCALATE"} and session
