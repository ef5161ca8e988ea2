"""The LangGraph example (``examples/langgraph_support_agent.py``) against a real server, with a
scripted chat model (issue 26): each turn is routed, answered, added to the session and admitted
to memory, a repeated task is recalled and not stored twice, and the rating reaches the route."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from phronesis.client import Client
from tests.api.conftest import API_KEY, LiveServer

EXAMPLE = Path(__file__).parents[2] / "examples" / "langgraph_support_agent.py"


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("langgraph_support_agent", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_agent_routes_answers_admits_and_rates_through_phronesis(live_server: LiveServer) -> None:
    example = _example()
    summary = "We talked about your router dropping the wifi."
    chat = FakeListChatModel(responses=[summary, summary])
    with Client(live_server.base_url, api_key=API_KEY) as phronesis:
        agent = example.build_agent(phronesis, chat)
        session = phronesis.routing.create_session()
        query = "Can you summarize our conversation so far?"
        first = agent.invoke({"session_id": session.id, "query": query})
        # routed REASON_ONLY: the chat model answered, the run was stored
        assert (first["decision"], first["reply"], first["admitted"]) == ("REASON_ONLY", summary, "ADD")
        # the session holds the turn and the agent's reply: the next turn is routed with them
        messages = phronesis.routing.session(session.id).recent_messages
        assert [(m.role, m.text) for m in messages[-2:]] == [("user", query), ("assistant", summary)]
        example.rate(phronesis, first, helpful=True)
        assert phronesis.decisions.get(first["decision_id"]).outcome == "correct"
        # the same task with the same answer again: memory does not store it twice
        again = agent.invoke({"session_id": session.id, "query": query})
        assert (again["reply"], again["admitted"]) == (summary, "NOT")
        # a question the knowledge base cannot answer: phronesis's own question goes back to the user
        unclear = agent.invoke({"session_id": session.id, "query": "How do I reset my router password?"})
        assert unclear["decision"] == "CLARIFY" and unclear["reply"].endswith("?")
        assert "admitted" not in unclear  # asked back: nothing done, nothing kept
        assert phronesis.routing.session(session.id).recent_messages[-1].text == unclear["reply"]


def test_the_example_runs_as_the_readme_says(
    live_server: LiveServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PHRONESIS_URL", live_server.base_url)
    monkeypatch.setenv("PHRONESIS_API_KEY", API_KEY)
    _example().main()
    printed = capsys.readouterr().out
    assert printed.count("> ") == 2 and "REASON_ONLY: You asked why your wifi drops" in printed, printed
