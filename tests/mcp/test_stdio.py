"""``phronesis mcp``: the MCP server over standard input and output, started as a process of its
own the way an agent IDE starts it, and driven by the SDK's own stdio client (issue 26). The
process acts for its ``--tenant`` on the configured database, which every other process shares."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.processes import cli, phronesis_env

pytestmark = pytest.mark.process  # phronesis mcp over stdio


async def test_an_agent_ide_session_over_stdio(tmp_path: Path) -> None:
    env = phronesis_env(tmp_path)
    cli(env, "heuristics", "add", "--condition", "the server room is too hot", "--action", "page the on-call engineer",
        "--confidence", "0.9", "--tenant", "acme")  # fmt: skip
    started = StdioServerParameters(
        command=sys.executable, args=["-m", "phronesis", "mcp", "--tenant", "acme"], env=env
    )
    async with Client(started, read_timeout_seconds=60) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert {"decide_event", "give_feedback", "route_turn", "admit_run", "search_runs"} <= tools
        decided = await client.call_tool("decide_event", {"text": "the server room is too hot"})
        assert not decided.is_error and decided.structured_content is not None, decided.content
        answer = decided.structured_content
        assert (answer["decision_path"], answer["response_text"]) == ("heuristic", "page the on-call engineer")
        admitted = await client.call_tool(
            "admit_run", {"task": "cool the server room", "outcome": "success", "summary": "opened the vents"}
        )
        assert admitted.structured_content is not None and admitted.structured_content["decision"] == "ADD"
        record = await client.read_resource(f"phronesis://decisions/{answer['response_id']}")
        assert json.loads(getattr(record.contents[0], "text", ""))["tenant"] == "acme"
    # the CLI, another process on the same database, sees what the MCP session recorded
    asked = ("admission", "search", "cool the server room", "--min-similarity=-1", "--json", "--tenant", "acme")
    listed = json.loads(cli(env, *asked))
    assert [hit["run"]["task"] for hit in listed] == ["cool the server room"]
