"""Whole conversations (issue 47) through a real server with the real sentence model and no LLM, as a
fresh install decides them: over HTTP, through the Python client and through an MCP client on the
server's ``/mcp``. Every turn that answered the router's own question failed before (0 of 5).

Dates are the server's: a lead in UTC says "tomorrow at 2pm", and the call carries tomorrow 14:00 UTC.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import pytest
from mcp import Client as MCPClient
from mcp.client.streamable_http import streamable_http_client

from phronesis.client import Client
from tests.journeys.conftest import Journeys, RoutingAgent, start

pytestmark = [pytest.mark.journey, pytest.mark.model, pytest.mark.process]

DOCUMENTS = [
    {
        "id": "pricing",
        "doc_type": "pricing",
        "title": "Plans and pricing",
        "text": "Starter costs $29 per month for up to 3 users. Pro costs $79 per month for up to 20 users.",
        "published_at": "2026-01-15T00:00:00Z",
    },
    {
        "id": "pricing-2022",
        "doc_type": "pricing",
        "title": "Price sheet 2022",
        "text": "Starter costs $19 per month for up to 3 users. Pro costs $59 per month for up to 20 users.",
        "published_at": "2022-01-10T00:00:00Z",
        "status": "superseded",
    },
    {
        "id": "security",
        "doc_type": "policy",
        "title": "Security and compliance",
        "text": "We are SOC 2 Type II compliant. Data is encrypted at rest and in transit and stored in the EU or US.",
        "published_at": "2025-09-01T00:00:00Z",
    },
    {
        "id": "refunds",
        "doc_type": "policy",
        "title": "Refund and cancellation policy",
        "text": "Monthly plans can be cancelled at any time. Monthly plans are not refundable. Annual plans are "
        "refundable within 30 days of purchase.",
    },
    {
        "id": "features",
        "doc_type": "faq",
        "title": "Product features",
        "text": "Custom fields are included from the Pro plan. The app is available in English, German and French.",
    },
]
TOOLS: dict[str, dict[str, Any]] = {
    "calendar": {
        "description": "Book, reschedule or cancel meetings and demos",
        "examples": ["Book a meeting with me", "Schedule a demo next week", "Can we set up a call?"],
        "parameters": {
            "type": "object",
            "required": ["email", "time"],
            "properties": {
                "email": {"type": "string", "format": "email", "description": "Your email address"},
                "time": {"type": "string", "format": "date-time", "description": "When you would like to meet"},
            },
        },
    },
    "order_lookup": {
        "description": "Look up an order's status and delivery date",
        "examples": ["Where is my order?", "Has my order shipped yet?", "Track order 48213"],
        "read_only": True,
        "parameters": {
            "type": "object",
            "required": ["order_id"],
            "properties": {
                "order_id": {"type": "string", "pattern": "^(LM-)?[0-9]{5}$", "description": "Your order number"}
            },
        },
    },
    "contract": {
        "description": "Start or change a subscription: plan and number of seats",
        "examples": ["Upgrade us to Pro", "I want to buy 12 seats on the Team plan", "Switch my plan to Enterprise"],
        "confirm": True,
        "parameters": {
            "type": "object",
            "required": ["plan", "seats"],
            "properties": {
                "plan": {"enum": ["Starter", "Team", "Pro", "Enterprise"], "description": "The plan"},
                "seats": {"type": "integer", "minimum": 1, "description": "How many seats"},
            },
        },
    },
}
LEAD = {"email": "ann@acme.io", "name": "Ann", "timezone": "UTC"}


@pytest.fixture(scope="module")
def helpdesk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Journeys]:
    yield from start(tmp_path_factory.mktemp("conversations"), PHRONESIS_LLM__SPEC="none")


@pytest.fixture
def agent(helpdesk: Journeys) -> RoutingAgent:
    """A help-desk agent: the documents and tools above registered, sessions for the lead above."""
    return RoutingAgent(helpdesk.tenant(), DOCUMENTS, TOOLS, LEAD)


def _tomorrow_at(hour: int) -> datetime:
    return datetime.combine(datetime.now(UTC).date() + timedelta(days=1), datetime.min.time(), UTC).replace(hour=hour)


def test_an_answer_to_the_routers_question_books_the_demo(agent: RoutingAgent) -> None:
    """ "Book a demo for me" → CLARIFY for the time; "tomorrow at 2pm works" escalated as
    no_suitable_tool and the session went to a human."""
    sid = agent.session()
    asked = agent.route(sid, "Book a demo for me")
    assert (asked["decision"], asked["required_tools"], asked["band"]) == ("CLARIFY", ["calendar"], "low"), asked
    assert asked["message"] == (
        "To book, reschedule or cancel meetings and demos I need to know when you would like to meet."
    )
    assert asked["pending"]["kind"] == "arguments"
    booked = agent.route(sid, "tomorrow at 2pm works")
    assert (booked["decision"], booked["path"], booked["session_mode"]) == ("USE_TOOL", "dialogue", "auto"), booked
    when = datetime.fromisoformat(booked["tool_arguments"]["calendar"]["time"])
    assert when == _tomorrow_at(14) and booked["tool_arguments"]["calendar"]["email"] == "ann@acme.io"
    thanks = agent.route(sid, "great, thanks!")
    assert thanks["decision"] == "REASON_ONLY"
    session = agent.http.get(f"/v1/sessions/{sid}").json()
    assert (session["mode"], session["pending"]) == ("auto", None)


def test_a_lookup_is_never_confirmed_and_an_id_given_later_completes_it(agent: RoutingAgent) -> None:
    at_once = agent.route(agent.session(), "Where is my order 48213?")
    assert (at_once["decision"], at_once["tool_arguments"]["order_lookup"]) == ("USE_TOOL", {"order_id": "48213"})
    sid = agent.session()
    assert agent.route(sid, "Where is my order?")["decision"] == "CLARIFY"
    later = agent.route(sid, "It's LM-10023")
    assert (later["decision"], later["tool_arguments"]["order_lookup"]) == ("USE_TOOL", {"order_id": "LM-10023"})


def test_a_contract_waits_for_a_yes(agent: RoutingAgent) -> None:
    sid = agent.session()
    asked = agent.route(sid, "Upgrade us to Pro with 12 seats")
    assert (asked["decision"], asked["pending"]["kind"]) == ("CLARIFY", "confirm"), asked
    assert "Please say yes or no" in asked["message"] and "contract" not in asked["message"]
    done = agent.route(sid, "yes please")
    assert (done["decision"], done["tool_arguments"]["contract"]) == ("USE_TOOL", {"plan": "Pro", "seats": 12})
    other = agent.session()
    agent.route(other, "Upgrade us to Pro with 12 seats")
    assert agent.route(other, "no, not now")["decision"] == "REASON_ONLY"


def test_small_talk_keeps_the_conversation(agent: RoutingAgent) -> None:
    """ "who won the football last night?" escalated, the session became human-owned, and the next
    "write me a poem" went unanswered."""
    sid = agent.session()
    for chatter in ("What's the weather like in Paris today?", "who won the football last night?"):
        answer = agent.route(sid, chatter)
        assert (answer["decision"], answer["session_mode"], answer["band"]) == ("CLARIFY", "auto", "low"), answer
        assert "I can answer questions about our products and plans" in answer["message"]
    price = agent.route(sid, "How much does the Pro plan cost?")
    assert price["decision"] == "RETRIEVE" and price["sources"][0]["id"] == "pricing"


@pytest.mark.parametrize(
    ("query", "source"),
    [
        ("Do you support custom fields?", "features"),
        ("Are annual plans refundable?", "refunds"),
        ("What's your policy on refunds?", "refunds"),
    ],
)
def test_a_question_about_a_policy_or_a_feature_is_answered(agent: RoutingAgent, query: str, source: str) -> None:
    answer = agent.route(agent.session(), query)
    assert (answer["decision"], answer["session_mode"]) == ("RETRIEVE", "auto"), answer
    assert answer["sources"][0]["id"] == source
    if query == "Are annual plans refundable?":  # the sentence that answers it, not "…are not refundable."
        assert "Annual plans are refundable" in answer["sources"][0]["passage"], answer["sources"][0]


def test_an_old_page_is_found_and_an_outdated_one_does_not_conflict(agent: RoutingAgent) -> None:
    sid = agent.session()
    secure = agent.route(sid, "Is my data encrypted?")
    assert secure["decision"] == "RETRIEVE" and secure["sources"][0]["id"] == "security", secure
    price = agent.route(sid, "What does the Starter plan cost?")
    assert price["decision"] == "RETRIEVE" and price["conflicts"] == [], price
    assert [s["id"] for s in price["sources"]][:1] == ["pricing"]
    assert "pricing-2022" not in [s["id"] for s in price["sources"]]


def test_route_feedback_refuses_a_tool_that_does_not_exist(agent: RoutingAgent) -> None:
    sid = agent.session()
    routed = agent.route(sid, "Thanks, that helps!")
    body = {"decision_id": routed["decision_id"], "correct": False, "expected_decision": "USE_TOOL"}
    refused = agent.http.post(f"/v1/sessions/{sid}/route-feedback", json=body | {"expected_tool": "teleporter"})
    assert refused.status_code == 422 and refused.headers["content-type"].startswith("application/problem+json")
    assert "expected_tool" in refused.text
    assert (
        agent.http.post(f"/v1/sessions/{sid}/route-feedback", json=body | {"expected_decision": "DANCE"}).status_code
        == 422
    )


def test_the_python_client_finishes_a_tool_call(agent: RoutingAgent) -> None:
    with Client(base_url=agent.tenant.base, api_key=agent.tenant.key) as client:
        sid = client.routing.create_session({"lead_context": LEAD}).id
        asked = client.routing.route(sid, {"query": "Can we set up a call?"})
        assert asked.decision == "CLARIFY" and asked.pending is not None and asked.pending.tool == "calendar"
        booked = client.routing.route(sid, {"query": "tomorrow at 10:30am"})
        assert booked.decision == "USE_TOOL"
        assert datetime.fromisoformat(booked.tool_arguments["calendar"]["time"]) == _tomorrow_at(10).replace(minute=30)


async def test_an_mcp_agent_finishes_a_tool_call(agent: RoutingAgent) -> None:
    headers = {"Authorization": f"Bearer {agent.tenant.key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        MCPClient(streamable_http_client(f"{agent.tenant.base}/mcp", http_client=http)) as client,
    ):
        first = await client.call_tool("route_turn", {"query": "Book a demo for me", "lead_context": LEAD})
        asked = first.structured_content
        assert not first.is_error and asked is not None and asked["decision"] == "CLARIFY", first.content
        time = _tomorrow_at(15).isoformat()
        second = await client.call_tool(
            "route_turn",
            {
                "query": "3pm tomorrow",
                "session_id": asked["session_id"],
                "tool_arguments": {"calendar": {"time": time}},
            },
        )
        done = second.structured_content
        assert not second.is_error and done is not None, second.content
        assert (done["decision"], done["tool_arguments"]["calendar"]["time"]) == ("USE_TOOL", time)
