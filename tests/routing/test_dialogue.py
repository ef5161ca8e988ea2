"""Conversations, not single turns (issue 47): what a session waits for, and how the next turn answers it.

The engine tests run on a real database (SQLite, and PostgreSQL where configured) with the hashing
embedder; the clock is fixed at Thursday 1 January 2026, 00:00 UTC.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from phronesis.engine import Engine
from phronesis.exceptions import InvalidInputError
from phronesis.routing.arguments import Extracted, completed_tools, evidenced_tools, extract, in_zone, read_all
from phronesis.routing.dialogue import acknowledges, asks_to_do, plain_yes, reply_to
from phronesis.routing.documents import DocumentIn
from phronesis.routing.sessions import NewSession
from phronesis.routing.tools import Tool, ToolIn
from tests.engines import EngineFactory
from tests.routing.conftest import exemplars, out_of_scope

T = "default"
CALENDAR = ToolIn(
    name="calendar",
    description="Book, reschedule or cancel meetings and demos",
    examples=["book a meeting with sales", "schedule a demo call"],
    parameters={
        "type": "object",
        "required": ["email", "time"],
        "properties": {
            "email": {"type": "string", "format": "email", "description": "Your email address"},
            "time": {"type": "string", "format": "date-time", "description": "When you would like to meet"},
            "attendees": {"type": "integer", "description": "How many people will attend"},
        },
    },
)
ORDERS = ToolIn(
    name="order_lookup",
    description="Look up an order's status and delivery date",
    examples=["where is my order", "track my order"],
    read_only=True,
    parameters={
        "type": "object",
        "required": ["order_id"],
        "properties": {
            "order_id": {"type": "string", "pattern": "^(LM-)?[0-9]{5}$", "description": "Your order number"}
        },
    },
)
CONTRACT = ToolIn(
    name="contract",
    description="Start or change a subscription: plan and number of seats",
    examples=["upgrade us to the pro plan", "buy seats on the team plan"],
    confirm=True,
    parameters={
        "type": "object",
        "required": ["plan", "seats"],
        "properties": {
            "plan": {"enum": ["Starter", "Team", "Pro"], "description": "The plan"},
            "seats": {"type": "integer", "minimum": 1, "description": "How many seats"},
        },
    },
)
BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=BERLIN)  # a Monday


def _tool(spec: ToolIn) -> Tool:
    return Tool(**spec.model_dump(), created_at=NOW, updated_at=NOW)


@pytest.mark.parametrize(
    ("text", "partial", "values"),
    [
        ("Thursday at 2pm works", {}, {"time": "2026-03-05T14:00:00+01:00"}),
        ("2pm", {"time": {"date": "2026-03-05"}}, {"time": "2026-03-05T14:00:00+01:00"}),
        ("tmrw 3pm pls", {}, {"time": "2026-03-03T15:00:00+01:00"}),
        ("on the 12th at 11:15 am", {}, {"time": "2026-03-12T11:15:00+01:00"}),
        ("Set up a demo for my team of 6 on Friday at 10", {}, {"time": "2026-03-06T10:00:00+01:00", "attendees": 6}),
        ("March 30 at 9am, ana@acme.io", {}, {"time": "2026-03-30T09:00:00+02:00", "email": "ana@acme.io"}),
        ("next week sometime", {}, {}),
    ],
)
def test_a_date_time_is_read_in_the_leads_timezone(
    text: str, partial: dict[str, dict[str, str]], values: dict[str, Any]
) -> None:
    """dateparser reads the day, the time of day is read first (it dropped a bare "2pm" and read "6 on
    Friday" as 2 June), and the offset is the lead's on that day (Berlin moves to summer time on 29 March)."""
    assert extract(_tool(CALENDAR), text, now=NOW, partial=partial).values == values


def test_a_half_given_date_time_is_kept_for_the_next_answer() -> None:
    got = extract(_tool(CALENDAR), "Thursday works", now=NOW)
    assert (got.values, got.partial) == ({}, {"time": {"date": "2026-03-05"}})


@pytest.mark.parametrize(
    ("spec", "text", "wanted", "values"),
    [
        (ORDERS, "Where is my order 48213?", None, {"order_id": "48213"}),
        (ORDERS, "it's lm-10023", None, {"order_id": "LM-10023"}),
        (ORDERS, "order 1234", None, {}),  # four digits do not fit the pattern
        (CONTRACT, "upgrade to pro 15 seats", None, {"plan": "Pro", "seats": 15}),
        (CONTRACT, "twelve", {"seats"}, {"seats": 12}),
        (CONTRACT, "12", None, {}),  # a bare number answers only the one number asked for
    ],
)
def test_ids_enums_and_numbers_are_read_by_their_schema(
    spec: ToolIn, text: str, wanted: set[str] | None, values: dict[str, Any]
) -> None:
    assert extract(_tool(spec), text, now=NOW, wanted=wanted).values == values


def test_which_tool_a_message_feeds() -> None:
    tools = [_tool(CALENDAR), _tool(ORDERS), _tool(CONTRACT)]

    def read(text: str) -> dict[str, Extracted]:
        return read_all(tools, text, now=NOW)

    assert evidenced_tools(tools, read("status of 38291?"), ids_only=True) == ["order_lookup"]
    assert evidenced_tools(tools, read("tomorrow 10am")) == ["calendar"]
    assert evidenced_tools(tools, read("tomorrow 10am"), ids_only=True) == []
    assert completed_tools(tools, read("Pro for 30 seats")) == ["contract"]
    assert completed_tools(tools, read("Mark us as interested in the Pro plan")) == []


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("yes please", "yes"),
        ("Yep, go ahead", "yes"),
        ("no", "no"),
        ("No, cancel it", "no"),
        ("never mind", "no"),
        ("nvm found it", "no"),
        ("no idea what the Pro plan costs", "other"),
        ("yes, and what does the Team plan cost per seat per month in euros?", "other"),
        ("Thursday at 2pm", "other"),
        ("ok, not now then", "no"),  # read as a yes, it made the subscription it declined
        ("hmm, cancel that", "no"),
    ],
)
def test_a_short_reply_agrees_refuses_or_is_something_else(text: str, reply: str) -> None:
    assert reply_to(text) == reply


def test_only_a_plain_yes_goes_back_to_a_call_after_a_question_on_the_side() -> None:
    assert [plain_yes(t) for t in ("yes", "go ahead", "sure, do it")] == [True, True, True]
    assert [plain_yes(t) for t in ("ok good", "great, thanks", "ok thanks, I'll think about it")] == [False] * 3


@pytest.mark.parametrize(
    ("text", "to_do"),
    [
        ("Send me the security whitepaper.", True),
        ("Please record that I'm the decision maker.", True),
        ("Can you update our address?", True),
        ("I need to cancel our demo.", True),
        ("Great, schedule it for then.", True),
        ("Can you tell me the price?", False),
        ("Can I change my billing cycle to annual?", False),  # a question about a policy
        ("I want a refund", False),
    ],
)
def test_a_request_to_act_is_told_from_a_question(text: str, to_do: bool) -> None:
    assert asks_to_do(text) is to_do


def test_acknowledgements_are_only_thanks_and_agreement() -> None:
    assert all(acknowledges(t) for t in ("thx", "ok cool thx", "danke!", "Fair enough.", "Thanks, that helps!"))
    assert not any(acknowledges(t) for t in ("thanks, book it for friday", "ok, what about pro?", ""))


# -- through the engine --------------------------------------------------------------------------


async def _engine(make_engine: EngineFactory, **routing: Any) -> Engine:
    engine: Engine = await make_engine(routing={"router": "local"} | routing)
    await engine.routing.fit(T, exemplars(), oos=out_of_scope())
    for tool in (CALENDAR, ORDERS, CONTRACT):
        await engine.routing.put_tool(T, tool)
    return engine


async def _session(engine: Engine, **lead: Any) -> str:
    lead = {"timezone": "UTC", "email": "ann@example.com", "name": "Ann"} | lead
    return (await engine.routing.create_session(T, NewSession(lead_context=lead))).id


async def test_an_answer_to_the_routers_own_question_completes_the_call(make_engine: EngineFactory) -> None:
    """Issue 47, item 1: "Book a demo" → CLARIFY for the time; "Friday at 2pm works" escalated as
    ``no_suitable_tool`` and the session went to a human."""
    engine = await _engine(make_engine)
    sid = await _session(engine)
    asked = await engine.route(sid, "schedule a demo call")
    assert (asked.decision, asked.required_tools, asked.band) == ("CLARIFY", ["calendar"], "low")
    assert asked.message == (
        "To book, reschedule or cancel meetings and demos I need to know when you would like to meet."
    )
    assert asked.pending is not None and (asked.pending.kind, asked.pending.missing) == ("arguments", ["time"])
    session = await engine.routing.session(T, sid)
    assert session.pending == asked.pending  # the session holds what it waits for

    booked = await engine.route(sid, "Friday at 2pm works")
    assert (booked.decision, booked.path, booked.session_mode) == ("USE_TOOL", "dialogue", "auto")
    assert booked.tool_arguments["calendar"] == {"email": "ann@example.com", "time": "2026-01-02T14:00:00+00:00"}
    assert booked.pending is None and (await engine.routing.session(T, sid)).pending is None
    record = await engine.decisions.get(T, booked.decision_id)
    assert record.attributes["pending_before"]["tool"] == "calendar" and record.attributes["pending"] is None


async def test_a_day_then_a_time_then_an_email_is_not_a_streak_of_questions(make_engine: EngineFactory) -> None:
    """Three questions, each answered: progress, not Rasa's two-stage fallback (the third escalated)."""
    engine = await _engine(make_engine)
    sid = await _session(engine, email=None)
    turns = ["schedule a demo call", "friday works", "3pm", "ann@example.com"]
    results = [await engine.route(sid, text) for text in turns]
    assert [r.decision for r in results] == ["CLARIFY", "CLARIFY", "CLARIFY", "USE_TOOL"]
    assert results[-1].tool_arguments["calendar"]["time"] == "2026-01-02T15:00:00+00:00"
    assert results[-1].tool_arguments["calendar"]["email"] == "ann@example.com"


async def test_yes_confirms_no_drops_and_a_correction_is_asked_again(make_engine: EngineFactory) -> None:
    """Issue 47, item 2: "yes please" was REASON_ONLY, and the call never happened."""
    engine = await _engine(make_engine)
    sid = await _session(engine)
    asked = await engine.route(sid, "upgrade us to the pro plan with 12 seats")
    assert (asked.decision, asked.required_tools) == ("CLARIFY", ["contract"])
    assert asked.pending is not None and asked.pending.kind == "confirm"
    assert asked.message is not None and "Please say yes or no" in asked.message and "contract" not in asked.message
    corrected = await engine.route(sid, "make it 15 seats")
    assert corrected.decision == "CLARIFY" and corrected.pending is not None
    assert corrected.pending.arguments == {"plan": "Pro", "seats": 15}
    done = await engine.route(sid, "yes please")
    assert (done.decision, done.tool_arguments["contract"]) == ("USE_TOOL", {"plan": "Pro", "seats": 15})

    other = await _session(engine)
    await engine.route(other, "upgrade us to the pro plan with 12 seats")
    dropped = await engine.route(other, "no, cancel that")
    assert (dropped.decision, dropped.pending, dropped.session_mode) == ("REASON_ONLY", None, "auto")
    assert "declined" in dropped.reasoning


async def test_a_read_only_tool_is_never_confirmed(make_engine: EngineFactory) -> None:
    """Issue 47, item 2: "Where is my order 48213?" asked "Before I go ahead with order_lookup"."""
    engine = await _engine(make_engine, high_threshold=0.99)  # every turn in the medium band
    sid = await _session(engine)
    looked = await engine.route(sid, "where is my order 48213")
    assert (looked.decision, looked.tool_arguments["order_lookup"]) == ("USE_TOOL", {"order_id": "48213"})
    asked = await engine.route(await _session(engine), "where is my order")
    answered = await engine.route(asked.session_id, "It's LM-10023")
    assert (asked.decision, answered.decision) == ("CLARIFY", "USE_TOOL")
    assert answered.tool_arguments["order_lookup"] == {"order_id": "LM-10023"}


async def test_the_tool_the_caller_names_is_the_tool(make_engine: EngineFactory) -> None:
    """Issue 47, item 3: with ``tool_arguments.calendar.time`` supplied, "Thursday at 2pm works" (no
    pending question) escalated as out of scope."""
    engine = await _engine(make_engine)
    sid = await _session(engine)
    args = {"calendar": {"time": "2026-01-08T14:00:00+00:00"}}
    routed = await engine.route(sid, "Thursday at 2pm works", tool_arguments=args)
    assert (routed.decision, routed.required_tools, routed.session_mode) == ("USE_TOOL", ["calendar"], "auto")
    assert routed.tool_arguments["calendar"]["time"] == "2026-01-08T14:00:00+00:00"  # the caller's wins


async def test_small_talk_is_not_an_emergency(make_engine: EngineFactory) -> None:
    """Issue 47, item 6: "who won the football last night?" handed the session to a human, and the
    next turn was unanswered."""
    engine = await _engine(make_engine)
    sid = await _session(engine)
    chatter = [await engine.route(sid, text) for text in ("who won the football match", "capital city of australia")]
    assert [(r.decision, r.session_mode) for r in chatter] == [("CLARIFY", "auto"), ("CLARIFY", "auto")]
    assert chatter[0].message is not None and "book, reschedule or cancel meetings" in chatter[0].message
    assert (await engine.routing.session(T, sid)).clarifications == 0  # not a streak toward a handoff
    back = await engine.route(sid, "what is the price of the pro plan")
    assert back.status == "routed" and back.decision != "ESCALATE"


TEXTS = st.sampled_from(
    [
        "schedule a demo call",
        "friday at 2pm",
        "3pm",
        "yes",
        "no",
        "never mind",
        "where is my order",
        "48213",
        "upgrade us to the pro plan with 12 seats",
        "make it 15 seats",
        "thanks that helps",
        "what is the price of the pro plan",
        "tell me a joke about cats",
        "I want a refund",
        "ann@example.com",
    ]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.lists(TEXTS, min_size=1, max_size=6))
async def test_every_turn_ends_in_a_state_the_user_can_see(make_engine: EngineFactory, turns: list[str]) -> None:
    """Account for everything: every turn is routed with a decision and its reason (or, once a person
    owns the session, says so), a question is always asked in words, something new is pending exactly
    when the turn asked (a question on the side leaves a waiting tool call as it was), and the session
    in the database holds what the result says it waits for."""
    engine = await _engine(make_engine)
    sid = await _session(engine)
    before = None
    for text in turns:
        result = await engine.route(sid, text)
        session = await engine.routing.session(T, sid)
        assert result.reasoning
        if result.status == "human_owned":
            assert result.decision is None and session.mode == "human"
            continue
        assert result.decision is not None and result.confidence is not None and result.band is not None
        if result.decision in ("CLARIFY", "ESCALATE"):
            assert result.message
        if result.decision == "CLARIFY":
            assert result.band == "low" and result.pending is not None
        elif result.decision in ("RETRIEVE", "REASON_ONLY"):
            if result.pending is not None:  # a tool call kept as it was
                assert before is not None and result.pending.tool is not None
                assert result.pending.model_copy(update={"carried": before.carried}) == before
        else:
            assert result.pending is None
        if result.decision == "USE_TOOL":
            assert result.required_tools and not result.missing_parameters
        assert session.pending == result.pending
        assert session.mode == result.session_mode
        before = result.pending


async def test_a_question_while_a_call_waits_is_a_question_and_yes_with_a_change_is_asked_again(
    make_engine: EngineFactory,
) -> None:
    """From a fresh-clone trial: "What is your Starter plan pricing?" while a Pro subscription waited
    for a yes changed it to Starter, and "yes, but make it 20 seats" was made without confirming."""
    engine = await _engine(make_engine, retrieval_min_score=0.0)  # the hashing embedder's low similarities
    price = "what is the price of the starter plan? Starter costs $29 per month for up to 3 users."
    await engine.routing.add_documents(T, [DocumentIn(id="pricing", doc_type="pricing", title="Pricing", text=price)])
    sid = await _session(engine)
    await engine.route(sid, "upgrade us to the pro plan with 12 seats")
    question = await engine.route(sid, "what is the price of the starter plan?")
    assert question.path != "dialogue" and question.tool_arguments.get("contract") != {"plan": "Starter", "seats": 12}
    # the question was on the side: the subscription still waits for its yes (a second trial: it was forgotten)
    assert question.decision in ("RETRIEVE", "REASON_ONLY")
    assert question.pending is not None and question.pending.kind == "confirm" and question.pending.tool == "contract"
    assert (await engine.routing.session(T, sid)).pending == question.pending
    done = await engine.route(sid, "yes")
    assert (done.decision, done.tool_arguments["contract"]) == ("USE_TOOL", {"plan": "Pro", "seats": 12})
    # "ok good" after the side answer acknowledges that answer: nothing is bought, the call still waits
    aside = await _session(engine)
    await engine.route(aside, "upgrade us to the pro plan with 12 seats")
    await engine.route(aside, "what is the price of the starter plan?")
    acknowledged = await engine.route(aside, "ok good")
    assert acknowledged.decision != "USE_TOOL" and acknowledged.pending is not None
    declined = await engine.route(aside, "ok, not now then")
    assert (declined.decision, declined.pending) == ("REASON_ONLY", None)
    other = await _session(engine)
    await engine.route(other, "upgrade us to the pro plan with 12 seats")
    changed = await engine.route(other, "yes, but make it 20 seats")
    assert (changed.decision, changed.pending.kind if changed.pending else None) == ("CLARIFY", "confirm")
    assert changed.pending is not None and changed.pending.arguments == {"plan": "Pro", "seats": 20}


async def test_arguments_are_checked_by_their_format_and_a_local_time_gets_the_leads_offset(
    make_engine: EngineFactory,
) -> None:
    """From a fresh-clone trial: ``"time": "soon"`` and ``"email": "not-an-email"`` were called with."""
    engine = await _engine(make_engine)
    sid = await _session(engine, timezone="Europe/Berlin")
    soon = await engine.route(sid, "schedule a demo call", tool_arguments={"calendar": {"time": "soon"}})
    assert soon.decision == "CLARIFY" and [p.field for p in soon.missing_parameters] == ["time"]
    assert soon.message is not None and "does not look right" in soon.message and "The the" not in soon.message
    local = await engine.route(
        await _session(engine, timezone="Europe/Berlin"),
        "schedule a demo call",
        tool_arguments={"calendar": {"time": "2026-03-05T14:00"}},
    )
    assert local.decision == "USE_TOOL" and local.tool_arguments["calendar"]["time"] == "2026-03-05T14:00:00+01:00"
    bad = await engine.route(
        await _session(engine, email="ann at acme"),
        "schedule a demo call",
        tool_arguments={"calendar": {"time": "2026-03-05T14:00"}},
    )
    assert bad.decision == "CLARIFY" and [p.field for p in bad.missing_parameters] == ["email"]


async def test_arguments_for_a_tool_that_is_not_registered_and_a_timezone_that_is_not_one_are_refused(
    make_engine: EngineFactory,
) -> None:
    engine = await _engine(make_engine)
    sid = await _session(engine)
    with pytest.raises(InvalidInputError) as refused:
        await engine.route(sid, "beam me up", tool_arguments={"teleporter": {"x": 1}})
    assert refused.value.field == "tool_arguments.teleporter"
    assert (await engine.routing.session(T, sid)).message_count == 0  # nothing stored
    escalated = await engine.route(sid, "I want a refund for the entire year.")
    assert escalated.session_mode == "human"
    with pytest.raises(InvalidInputError) as owned:  # issue 52: a session a person owns skipped the check
        await engine.route(sid, "beam me up", tool_arguments={"teleporter": {"x": 1}})
    assert owned.value.field == "tool_arguments.teleporter"
    with pytest.raises(InvalidInputError, match="IANA") as zone:  # issue 52: it named the parent field
        NewSession(lead_context={"timezone": "Mars/Olympus"})
    assert zone.value.field == "lead_context.timezone"
    with pytest.raises(ValidationError, match="read-only tool needs no confirmation") as both:
        ToolIn(name="x", description="d", read_only=True, confirm=True)
    assert both.value.errors()[0]["loc"] == ("confirm",)


def test_a_date_time_the_caller_passes_is_one_moment_in_the_leads_timezone() -> None:
    tool = _tool(CALENDAR)
    assert in_zone(tool, {"time": "2026-03-05T14:00"}, NOW) == {"time": "2026-03-05T14:00:00+01:00"}
    assert in_zone(tool, {"time": "Thursday 10:00"}, NOW) == {"time": "2026-03-05T10:00:00+01:00"}
    assert in_zone(tool, {"time": "2026-03-05T14:00:00Z"}, NOW) == {"time": "2026-03-05T14:00:00Z"}  # kept
    assert in_zone(tool, {"time": "soon", "attendees": 3}, NOW) == {"time": "soon", "attendees": 3}  # checked later


async def test_the_callers_tool_asks_for_what_it_still_needs_not_what_the_agent_can_do(
    make_engine: EngineFactory,
) -> None:
    """A turn the router finds out of scope, with the caller's arguments for the calendar but no email
    known: the question asks for the email (it said "I can't help with that here" before)."""
    engine = await _engine(make_engine)
    sid = await _session(engine, email=None)
    args = {"calendar": {"time": "2026-01-08T14:00:00+00:00"}}
    asked = await engine.route(sid, "capital city of australia", tool_arguments=args)
    assert (asked.decision, asked.required_tools) == ("CLARIFY", ["calendar"])
    assert asked.message is not None and "your email address" in asked.message, asked.message


SEND = ToolIn(
    name="email",
    description="Send the lead documents, links or materials by email",
    examples=["email me the documents", "send me the slides"],
    parameters={
        "type": "object",
        "required": ["document"],
        "properties": {"document": {"type": "string", "description": "What to send"}},
    },
)


async def test_the_one_free_text_argument_asked_for_is_the_answer(make_engine: EngineFactory) -> None:
    """A fresh-clone trial (issue 47): "the pricing sheet", answering "what to send", became a query
    of its own and the email was never sent; a free-text argument could only come from the caller."""
    engine = await _engine(make_engine)
    await engine.routing.put_tool(T, SEND)
    sid = await _session(engine)
    asked = await engine.route(sid, "email me the documents", tool_arguments={"email": {}})
    assert asked.pending is not None and (asked.pending.tool, asked.pending.missing) == ("email", ["document"])
    answered = await engine.route(sid, "It's the pricing sheet.")
    assert (answered.decision, answered.path) == ("USE_TOOL", "dialogue")
    assert answered.tool_arguments["email"] == {"document": "the pricing sheet"}
    # a question or a request of its own is not the answer
    again = await _session(engine)
    await engine.route(again, "email me the documents", tool_arguments={"email": {}})
    other = await engine.route(again, "what is the price of the pro plan?")
    assert other.tool_arguments.get("email") != {"document": "what is the price of the pro plan?"}
