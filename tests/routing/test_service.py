"""The routing pipeline on a real database (SQLite and PostgreSQL): every path the seed names."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.embeddings.types import Vectors
from phronesis.engine import Engine
from phronesis.exceptions import EmbeddingError, LLMConnectionError, LLMServerError, LLMTimeoutError
from phronesis.llm.types import LLMRequest
from phronesis.replay.routing_bands import load_banded
from phronesis.routing.documents import DocumentIn
from phronesis.routing.exemplars import Exemplar
from phronesis.routing.models import RouteResult, ToolOutcomeIn
from phronesis.routing.retrieval import RetrievalError, RetrievalResult
from phronesis.routing.sessions import NewSession
from phronesis.routing.tools import ToolIn
from phronesis.tenant_settings import ApplyIn
from phronesis.testing import ScriptedLLM
from tests.engines import EngineFactory
from tests.routing.conftest import exemplars, out_of_scope

T = "default"
CALENDAR = ToolIn(
    name="calendar",
    description="book meetings",
    examples=["book a meeting with sales", "schedule a demo call"],
    parameters={
        "type": "object",
        "properties": {"email": {"type": "string"}, "time": {"type": "string"}},
        "required": ["email", "time"],
    },
    critical=True,
)


async def _session(engine: Engine, **fields: Any) -> str:
    return (await engine.routing.create_session(T, NewSession(**fields))).id


async def _fitted(make_engine: EngineFactory, llm: ScriptedLLM | None = None, **routing: Any) -> Engine:
    engine: Engine = await make_engine(llm=llm, routing=routing)
    await engine.routing.fit(T, exemplars(), oos=out_of_scope())
    await engine.routing.put_tool(T, CALENDAR)
    return engine


async def _replays_to_itself(engine: Engine) -> int:
    """Every routed turn's record settles, at the thresholds it had, on the decision it made:
    the replay of the bands (``replay.routing_bands``) decides as the service did."""
    rows = await load_banded(engine.database, T, datetime(2000, 1, 1, tzinfo=UTC))
    assert rows, "the turns recorded what their bands read"
    assert [row.action_at(row.bands) for row in rows] == [row.action for row in rows]
    return len(rows)


class SpyRetriever:
    def __init__(self, result: RetrievalResult | Exception) -> None:
        self.result = result
        self.queries: list[str] = []

    async def retrieve(self, tenant: str, query: str, *, top_k: int, min_score: float | None = None) -> RetrievalResult:
        self.queries.append(query)
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


async def test_sensitive_topic_escalates_without_an_llm_and_hands_the_session_to_a_human(
    make_engine: EngineFactory,
) -> None:
    llm = ScriptedLLM([])
    engine = await _fitted(make_engine, llm)
    sid = await _session(engine)
    result = await engine.route(sid, "I want a refund for the entire year.")
    assert result.decision == "ESCALATE" and result.path == "rule"
    assert result.escalation_reason == "sensitive_topic_detected" and result.confidence is not None
    assert result.confidence < 0.5 and result.session_mode == "human"
    assert result.message == engine.settings.routing.handoff_message
    assert llm.requests == []

    owned = await engine.route(sid, "hello? anyone?")
    assert owned.status == "human_owned" and owned.decision is None
    session = await engine.routing.session(T, sid)
    assert [m.text for m in session.recent_messages][-2:] == ["I want a refund for the entire year.", "hello? anyone?"]

    await engine.routing.handback(T, sid)
    resumed = await engine.route(sid, "thanks that helps")
    assert resumed.status == "routed" and resumed.decision == "REASON_ONLY"

    record = await engine.decisions.get(T, result.decision_id)
    assert record.kind == "routing" and record.reason == "sensitive_topic_detected"
    assert record.attributes["sensitive_topics"] == ["refund"]
    assert await _replays_to_itself(engine) == 2  # the human-owned turn was not routed


class HeldRetriever:
    """Retrieval that waits until the test lets it go, so another turn can commit meanwhile."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def retrieve(self, tenant: str, query: str, *, top_k: int, min_score: float | None = None) -> RetrievalResult:
        self.entered.set()
        await self.release.wait()
        return RetrievalResult()


async def test_a_turn_decided_while_another_hands_the_session_to_a_human_is_not_routed(
    make_engine: EngineFactory,
) -> None:
    """The commit reads the session's mode again under the writer's lock: a turn that was being
    decided when another escalated leaves the session to the human (seed 002: a human owns it)."""
    engine = await _fitted(make_engine)
    held = HeldRetriever()
    object.__setattr__(engine.routing.service.parts, "retriever", held)
    sid = await _session(engine)
    slow = asyncio.create_task(engine.route(sid, "how much does the pro plan cost"))
    await asyncio.wait_for(held.entered.wait(), 10)
    escalated = await engine.route(sid, "I want a refund for the entire year.")
    assert escalated.decision == "ESCALATE" and escalated.session_mode == "human"
    held.release.set()
    superseded = await slow
    assert superseded.status == "human_owned" and superseded.decision is None and superseded.session_mode == "human"
    record = await engine.decisions.get(T, superseded.decision_id)
    assert record.path == "human_owned" and "human took the session over" in record.attributes["superseded"]
    session = await engine.routing.session(T, sid)
    assert session.mode == "human" and session.message_count == 2 and session.clarifications == 0
    assert session.escalation_reason == "sensitive_topic_detected"


async def test_use_tool_with_missing_arguments_becomes_clarify_naming_them(make_engine: EngineFactory) -> None:
    engine = await _fitted(make_engine)
    sid = await _session(engine, lead_context={"email": "ann@example.com"})
    result = await engine.route(sid, "book a meeting with sales")
    assert result.decision == "CLARIFY"
    assert [(p.tool, p.field) for p in result.missing_parameters] == [("calendar", "time")]
    assert result.tool_arguments["calendar"] == {"email": "ann@example.com"}
    assert result.message is not None and "time" in result.message

    sid2 = await _session(engine, lead_context={"email": "ann@example.com"})
    ok = await engine.route(sid2, "book a meeting with sales", tool_arguments={"calendar": {"time": "fri 3pm"}})
    assert ok.decision == "USE_TOOL" and ok.required_tools == ["calendar"] and not ok.missing_parameters


async def test_retrieval_runs_only_when_the_decision_asks_for_it(make_engine: EngineFactory) -> None:
    engine = await _fitted(make_engine)
    spy = SpyRetriever(RetrievalResult())
    object.__setattr__(engine.routing.service.parts, "retriever", spy)
    sid = await _session(engine)
    await engine.route(sid, "thanks that helps")
    assert spy.queries == []
    result = await engine.route(sid, "how much does the pro plan cost")
    assert spy.queries and spy.queries[0] == "how much does the pro plan cost"
    assert result.composite is not None and result.composite.factors["source_quality"] == 0.0


@pytest.mark.parametrize(
    ("query", "expected"), [("price of the pro plan", "REASON_ONLY"), ("pricing for the payment plan", "ESCALATE")]
)
async def test_retrieval_failure_answers_from_context_or_escalates_a_critical_query(
    make_engine: EngineFactory, query: str, expected: str
) -> None:
    engine = await _fitted(make_engine)
    object.__setattr__(engine.routing.service.parts, "retriever", SpyRetriever(RetrievalError("index down")))
    sid = await _session(engine, lead_context={"email": "a", "name": "b", "company": "c", "status": "d"})
    result = await engine.route(sid, query)
    record = await engine.decisions.get(T, result.decision_id)
    assert record.attributes["retrieval_error"] == "index down"
    if expected == "REASON_ONLY":
        assert result.decision in ("REASON_ONLY", "ESCALATE")  # × 0.7 may drop it into the escalation band
        assert record.attributes["penalties"] == {"retrieval_failure": 0.7}  # on the final confidence
        assert result.confidence is not None and result.confidence <= 0.7 + 1e-9
    else:
        assert result.decision == "ESCALATE" and result.escalation_reason == "retrieval_failure"
        assert result.message == engine.settings.routing.error_message


async def test_local_retrieval_reranks_and_detects_conflicts(make_engine: EngineFactory) -> None:
    engine = await _fitted(make_engine, retrieval_min_score=0.0)
    await engine.routing.add_documents(
        T,
        [
            DocumentIn(id="p1", doc_type="policy", text="pro plan pricing: the pro plan costs $49 per seat"),
            DocumentIn(id="p2", doc_type="policy", text="pro plan pricing: the pro plan costs $59 per seat"),
            DocumentIn(id="x", doc_type="general", text="our office dog is called biscuit"),
        ],
    )
    result = await engine.routing.service.parts.retriever.retrieve(T, "pro plan pricing per seat", top_k=2)
    assert [s.id for s in result.sources][:2] in (["p1", "p2"], ["p2", "p1"])
    assert result.conflict_detected


async def test_cascade_asks_the_llm_only_when_the_local_router_is_unsure(make_engine: EngineFactory) -> None:
    answer = json.dumps({"decision": "retrieve", "confidence": 0.95, "reasoning": "factual", "retrieval_needed": True})
    llm = ScriptedLLM(lambda request: answer)
    engine = await _fitted(make_engine, llm)
    sid = await _session(engine)
    sure = await engine.route(sid, "thanks for the help")
    assert sure.path == "local" and llm.requests == []
    unsure = await engine.route(sid, "quantum chromodynamics lattice gauge theory")
    assert unsure.path == "llm" and len(llm.requests) == 1
    assert unsure.router_confidence == pytest.approx(0.8)  # the LLM's 0.95, capped at the ceiling
    prompt = llm.requests[0].prompt
    assert "<query>" in prompt and "LOCAL ROUTER HINTS" in prompt
    record = await engine.decisions.get(T, unsure.decision_id)
    assert record.path == "llm" and record.raw_llm_output == answer and record.prompt == prompt
    assert (record.strategy, record.llm_calls) == ("cascade", 1)
    # every routing record counts its LLM requests: none is "none", not "unknown" (the dashboard's
    # "decided without the LLM" read 0 % for a server with no LLM at all)
    assert (await engine.decisions.get(T, sure.decision_id)).llm_calls == 0
    forced = await engine.route(sid, "quantum chromodynamics lattice gauge theory", router="local")
    assert forced.path == "local" and len(llm.requests) == 1
    assert (await engine.decisions.get(T, forced.decision_id)).strategy == "local"


@pytest.mark.parametrize(
    "step",
    ["not json at all", '{"decision": "DANCE", "confidence": 0.9}', '{"decision": "RETRIEVE", "confidence": 7}'],
)
async def test_an_unusable_llm_answer_is_decided_by_the_local_router_with_the_reason_recorded(
    make_engine: EngineFactory, step: str
) -> None:
    """Issue 47: garbage from the LLM handed every cascade turn to a person ("Where is my order?"),
    where a timeout fell back to the local router. Both are treated alike now."""
    engine = await _fitted(make_engine, ScriptedLLM([step]), router="llm")
    sid = await _session(engine)
    result = await engine.route(sid, "what is the price of the pro plan")
    assert result.status == "routed" and result.path == "local" and result.decision != "ESCALATE"
    assert result.session_mode == "auto"
    assert result.degraded is not None and result.degraded.startswith("unusable answer: ")
    assert result.degraded.endswith("decided by the local router")
    record = await engine.decisions.get(T, result.decision_id)
    assert record.raw_llm_output == step and record.attributes["llm_failure"]["reason"] != "llm_error"


async def test_an_llm_naming_a_tool_that_does_not_exist_escalates_with_the_reason_recorded(
    make_engine: EngineFactory,
) -> None:
    step = '{"decision": "USE_TOOL", "confidence": 0.9, "required_tools": ["fax"]}'
    engine = await _fitted(make_engine, ScriptedLLM([step]), router="llm")
    result = await engine.route(await _session(engine), "tell me about plans")
    assert result.decision == "ESCALATE" and result.escalation_reason == "invalid_decision"
    assert result.confidence is not None and result.confidence < 0.5
    assert result.message == engine.settings.routing.handoff_message


@pytest.mark.parametrize(
    "error", [LLMServerError("boom"), LLMTimeoutError("slow"), LLMConnectionError("refused")], ids=str
)
async def test_a_failed_llm_call_is_decided_by_the_local_router_and_says_so(
    make_engine: EngineFactory, error: Exception
) -> None:
    """Issue 20: one timeout used to escalate, and the session stayed with a human for good."""
    answer = json.dumps({"decision": "RETRIEVE", "confidence": 0.9, "reasoning": "docs"})
    engine = await _fitted(make_engine, ScriptedLLM([error, answer]), router="llm")
    sid = await _session(engine)

    failed = await engine.route(sid, "price of the pro plan")
    assert failed.status == "routed" and failed.path == "local" and failed.decision != "ESCALATE"
    assert failed.degraded is not None and failed.degraded.endswith("decided by the local router")
    assert failed.degraded.startswith(error.reason)  # type: ignore[attr-defined]
    record = await engine.decisions.get(T, failed.decision_id)
    assert record.model == "scripted" and record.attributes["degraded"] == failed.degraded
    assert record.attributes["llm_failure"]["reason"] == "llm_error"

    after = await engine.route(sid, "price of the pro plan")  # the session is still the router's
    assert after.status == "routed" and after.path == "llm" and after.degraded is None


async def test_two_clarifications_then_the_next_escalates(make_engine: EngineFactory) -> None:
    engine = await _fitted(make_engine, high_threshold=0.99)  # every RETRIEVE is medium band → CLARIFY
    sid = await _session(engine)
    first = await engine.route(sid, "price of the pro plan")
    second = await engine.route(sid, "price of the pro plan please")
    third = await engine.route(sid, "the pro plan price")
    assert [first.decision, second.decision, third.decision] == ["CLARIFY", "CLARIFY", "ESCALATE"]
    assert third.escalation_reason == "repeated_clarification"
    assert await _replays_to_itself(engine) == 3


async def test_the_medium_band_answers_from_what_it_retrieved_more_but_confirms_a_tool(
    make_engine: EngineFactory,
) -> None:
    """Seed 002's medium band: "ask a clarifying question or retrieve more". A RETRIEVE retrieves more
    and answers from the sources it has; a tool call, which acts, is confirmed first."""
    engine = await _fitted(make_engine, high_threshold=0.99, retrieval_min_score=0.0)  # every turn medium
    await engine.routing.add_documents(T, [DocumentIn(id="a", doc_type="pricing", text="The pro plan price is $49.")])
    answered = await engine.route(await _session(engine), "price of the pro plan")
    assert (answered.decision, answered.band) == ("RETRIEVE", "medium") and answered.sources
    assert "retrieved more" in answered.reasoning
    record = await engine.decisions.get(T, answered.decision_id)
    assert record.attributes["retrieved_more"] is True
    known = {"email": "a@b.c", "time": "friday 3pm"}  # every argument from the lead, none in the words
    booked = await engine.route(await _session(engine, lead_context=known), "book a meeting with sales")
    assert (booked.decision, booked.band) == ("CLARIFY", "low") and "confirm" in booked.reasoning
    assert booked.pending is not None and (booked.pending.kind, booked.pending.tool) == ("confirm", "calendar")
    # issue 47: a call the caller names (its tool_arguments) is not confirmed again
    args = {"calendar": {"email": "a@b.c", "time": "friday 3pm"}}
    named = await engine.route(await _session(engine), "book a meeting on friday", tool_arguments=args)
    assert (named.decision, named.required_tools, named.pending) == ("USE_TOOL", ["calendar"], None)
    assert record.attributes["bands"]["more_tried"] is True and record.attributes["bands"]["more"] is not None
    assert await _replays_to_itself(engine) == 3


async def test_tool_failures_retry_then_escalate_a_critical_tool(make_engine: EngineFactory) -> None:
    engine = await _fitted(make_engine)
    sid = await _session(engine)
    outcomes = []
    for attempt in range(1, 5):
        outcomes.append(
            await engine.routing.report_tool_outcome(
                T, sid, ToolOutcomeIn(tool="calendar", success=False, attempt=attempt, error="503")
            )
        )
    assert [o.next_action for o in outcomes] == ["retry", "retry", "retry", "escalate"]
    assert outcomes[-1].session_mode == "human" and outcomes[-1].tool_success_rate == 0.0
    session = await engine.routing.session(T, sid)
    assert session.tool_calls == 4 and session.tool_failures == 4 and session.mode == "human"


async def test_no_llm_and_no_fitted_router_still_decides(make_engine: EngineFactory) -> None:
    engine = await make_engine()
    sid = await _session(engine)
    result = await engine.route(sid, "Can you summarize what we discussed?")
    assert result.decision == "REASON_ONLY"
    record = await engine.decisions.get(T, result.decision_id)
    assert record.attributes["router_source"] == "bundled_default"


async def test_llm_requests_carry_the_seed_temperature(make_engine: EngineFactory) -> None:
    seen: list[LLMRequest] = []

    def respond(request: LLMRequest) -> str:
        seen.append(request)
        return '{"decision": "REASON_ONLY", "confidence": 0.7}'

    engine = await _fitted(make_engine, ScriptedLLM(respond), router="llm")
    await engine.route(await _session(engine), "tell me about the plans")
    assert seen[0].temperature == 0.3 and seen[0].max_tokens == 500


class BrokenEmbedder(HashingEmbedder):
    """An embedder whose model died (out of memory, a corrupt file): every call fails."""

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        raise EmbeddingError("all-MiniLM-L6-v2 failed to embed 1 texts: CUDA out of memory")

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return self.embed_sync(texts)


def _break_the_embedder(engine: Engine) -> None:
    service = engine.routing.service
    service.parts = replace(service.parts, embedder=BrokenEmbedder(384))


async def test_a_failed_embedder_escalates_as_internal_error_and_keeps_the_message(
    make_engine: EngineFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """Seed 002's ``internal_error``: the error no longer escapes ``route()`` (issue 22); the turn is
    recorded, the user's message kept, and the fault logged once with its cause."""
    engine = await _fitted(make_engine)
    _break_the_embedder(engine)
    sid = await _session(engine)

    with caplog.at_level(logging.ERROR, logger="phronesis.routing"):
        first = await engine.route(sid, "price of the pro plan")
        await engine.routing.handback(T, sid)
        again = await engine.route(sid, "and the starter plan?")
    assert again.escalation_reason == "internal_error"
    failures = [r for r in caplog.records if r.name == "phronesis.routing"]
    assert len(failures) == 1 and "CUDA out of memory" in failures[0].getMessage()  # once, with its cause
    assert (first.decision, first.escalation_reason, first.path) == ("ESCALATE", "internal_error", "fallback")
    assert first.degraded is not None and "CUDA out of memory" in first.degraded
    assert first.message == engine.settings.routing.error_message
    record = await engine.decisions.get(T, first.decision_id)
    assert "CUDA out of memory" in record.attributes["internal_error"]
    session = await engine.routing.sessions.get(T, sid, turns=5)
    assert [m.text for m in session.recent_messages if m.role == "user"][:1] == ["price of the pro plan"]


async def test_a_failed_embedder_in_cascade_mode_asks_the_llm_and_says_so(make_engine: EngineFactory) -> None:
    answer = json.dumps({"decision": "RETRIEVE", "confidence": 0.9, "reasoning": "pricing docs"})
    engine = await _fitted(make_engine, ScriptedLLM([answer]), router="cascade")
    _break_the_embedder(engine)
    sid = await _session(engine)

    routed = await engine.route(sid, "price of the pro plan")
    assert routed.path == "llm" and routed.decision != "ESCALATE"
    assert routed.degraded is not None and routed.degraded.endswith("decided by the LLM")


CRM = ToolIn(
    name="crm",
    description="update the lead record",
    examples=["update my company name", "change my phone number"],
    parameters={
        "type": "object",
        "properties": {"field": {"type": "string", "description": "The field to change"}, "value": {"type": "string"}},
        "required": ["field", "value"],
    },
)
EMAIL = ToolIn(name="email", description="send emails", examples=["send me a follow-up email"])


async def test_with_three_tools_the_one_meant_is_chosen(make_engine: EngineFactory) -> None:
    """Issue 22: "Book a meeting" with calendar, crm and email registered was a CLARIFY naming all three."""
    engine = await _fitted(make_engine)
    await engine.routing.put_tool(T, CRM)
    await engine.routing.put_tool(T, EMAIL)
    sid = await _session(engine, lead_context={"email": "ann@example.com"})
    booked = await engine.route(sid, "book a meeting with sales")  # the time is asked for next
    assert (booked.decision, booked.required_tools) == ("CLARIFY", ["calendar"])
    record = await engine.decisions.get(T, booked.decision_id)
    assert record.attributes["tool_choice"]["chosen"] == "calendar"  # explained on the record


async def _change_company_name(make_engine: EngineFactory, tool: ToolIn) -> RouteResult:
    """ "update my company name" (an action the router knows) with only ``tool`` registered."""
    engine: Engine = await make_engine()
    await engine.routing.fit(T, [*exemplars(), *_exemplars("change", "USE_TOOL", "update my company name")])
    await engine.routing.put_tool(T, tool)
    return await engine.route(await _session(engine), "update my company name")


async def test_an_action_no_registered_tool_does_is_asked_about_not_handed_to_a_person(
    make_engine: EngineFactory,
) -> None:
    """Only a calendar: "book a meeting" uses it; an unrelated action does not borrow it (and ask for a
    time), and the chat stays with the agent, which asks what is meant (issue 47; seed 002's "I need a
    plan for my team" → CLARIFY)."""
    result = await _change_company_name(make_engine, CALENDAR)
    assert (result.decision, result.escalation_reason, result.session_mode) == ("CLARIFY", None, "auto")
    assert result.required_tools == [] and not result.missing_parameters
    assert result.pending is not None and result.pending.kind == "question"


async def test_missing_arguments_are_asked_for_by_their_descriptions(make_engine: EngineFactory) -> None:
    result = await _change_company_name(make_engine, CRM)
    # issue 47: in the tool's own words, no internal names ("(field)") and no "a valid …"
    assert (
        result.decision == "CLARIFY"
        and result.message == "To update the lead record I need the field to change and value."
    )
    assert result.pending is not None and (result.pending.kind, result.pending.missing) == (
        "arguments",
        ["field", "value"],
    )


async def test_retrieve_with_nothing_found_asks_instead_of_answering(make_engine: EngineFactory) -> None:
    """Issue 22: an empty knowledge base gave RETRIEVE 0.78, high band, sources=[]."""
    engine = await _fitted(make_engine)
    object.__setattr__(engine.routing.service.parts, "retriever", SpyRetriever(RetrievalResult()))
    sid = await _session(engine, lead_context={"email": "a", "name": "b", "company": "c", "status": "d"})
    result = await engine.route(sid, "how much does the pro plan cost")
    assert result.decision == "CLARIFY" and result.sources == []
    assert result.message is not None and "could not find" in result.message
    assert result.band != "high"
    assert await _replays_to_itself(engine) == 1


def _exemplars(label: str, decision: str, *texts: str) -> list[Exemplar]:
    variants = [f"{t}{suffix}" for t in texts for suffix in ("", " please", " now", " for me", " today", " asap")]
    return [Exemplar(text=text, label=label, decision=decision) for text in variants]  # type: ignore[arg-type]


async def test_failing_tools_escalate_even_with_a_sure_router(make_engine: EngineFactory) -> None:
    """Issue 22: four failed tool calls in an anonymous session gave composite 0.26 → 0.17 but a final
    0.63 / 0.58 (the sure router carried the blend), and nothing escalated. The composite decides."""
    engine = await _fitted(make_engine)
    sid = await _session(engine)
    for attempt in range(1, 4):
        await engine.routing.report_tool_outcome(T, sid, ToolOutcomeIn(tool="calendar", success=False, attempt=attempt))
    result = await engine.route(sid, "thanks that helps")
    assert result.composite is not None and result.composite.value < 0.5
    assert (result.decision, result.escalation_reason) == ("ESCALATE", "confidence_below_threshold")
    assert "below 0.5" in result.reasoning
    assert await _replays_to_itself(engine) == 1
    # issue 52: a tool's report asks no LLM, and says so (the dashboard's "decided without the LLM")
    reports = (await engine.decisions.page(T, kind="routing", strategy="tool_outcome")).items
    assert [r.llm_calls for r in reports] == [0, 0, 0]


async def test_a_blend_with_the_router_still_lets_the_composite_escalate(make_engine: EngineFactory) -> None:
    """With ``router_weight`` > 0 a sure router lifts the blend out of the escalation band; a composite
    in that band escalates all the same."""
    engine = await _fitted(make_engine, router_weight=0.5)
    sid = await _session(engine)
    for attempt in range(1, 4):
        await engine.routing.report_tool_outcome(T, sid, ToolOutcomeIn(tool="calendar", success=False, attempt=attempt))
    result = await engine.route(sid, "thanks that helps")
    assert result.composite is not None and result.composite.value < 0.5
    assert result.decision == "ESCALATE" and "composite confidence" in result.reasoning


async def test_conflicting_sources_halve_the_final_confidence(make_engine: EngineFactory) -> None:
    """Seed 002: a conflict halves confidence; blended before, × 0.5 gave 0.90 → 0.70 and still answered."""
    engine = await _fitted(make_engine, retrieval_min_score=0.0)
    await engine.routing.add_documents(
        T,
        [
            DocumentIn(id="a", doc_type="pricing", text="The pro plan price is $49 per month."),
            DocumentIn(id="b", doc_type="pricing", text="The pro plan price is $59 per month."),
        ],
    )
    sid = await _session(engine, lead_context={"email": "a", "name": "b", "company": "c", "status": "d"})
    result = await engine.route(sid, "price of the pro plan")
    record = await engine.decisions.get(T, result.decision_id)
    assert result.conflicts and record.attributes["penalties"] == {"conflict": 0.5}
    assert result.confidence is not None and result.confidence < 0.5 and result.decision == "ESCALATE"


async def test_what_the_tenant_registered_is_in_scope_after_all(make_engine: EngineFactory) -> None:
    """The router knows only its exemplars: a query it finds out of scope that a registered tool does,
    or that the knowledge base answers, is routed there; other chatter still escalates as out of scope."""
    engine = await _fitted(make_engine, retrieval_min_score=0.3)
    music = ToolIn(name="music", description="play music", examples=["play some jazz music"])
    await engine.routing.put_tool(T, music)
    await engine.routing.add_documents(
        T, [DocumentIn(id="everest", doc_type="faq", title="Everest", text="how tall is mount everest: 8849 m")]
    )
    sid = await _session(engine, lead_context={"email": "a", "name": "b", "company": "c", "status": "d"})

    played = await engine.route(sid, "play some jazz music")
    assert (played.decision, played.required_tools) == ("USE_TOOL", ["music"])
    real = engine.routing.service.parts.retriever
    searches: list[str] = []

    async def counted(tenant: str, query: str, *, top_k: int, min_score: float | None = None) -> RetrievalResult:
        searches.append(query)
        return await real.retrieve(tenant, query, top_k=top_k, min_score=min_score)

    object.__setattr__(engine.routing.service.parts, "retriever", SimpleNamespace(retrieve=counted))
    answered = await engine.route(sid, "how tall is mount everest")
    assert answered.decision == "RETRIEVE" and [s.id for s in answered.sources] == ["everest"]
    assert searches == ["how tall is mount everest"]  # the second opinion's search is the answer's
    record = await engine.decisions.get(T, answered.decision_id)
    assert record.attributes["local"]["abstained"] == "out_of_scope"  # what the router alone said
    # issue 47: other chatter is not an emergency: the agent says what it can help with, the session stays
    chatter = await engine.route(await _session(engine), "sing a song about the sea")
    assert (chatter.decision, chatter.session_mode, chatter.band) == ("CLARIFY", "auto", "low")
    assert chatter.message is not None and "play music" in chatter.message
    strict = await make_engine(routing={"out_of_scope_decision": "ESCALATE", "retrieval_min_score": 0.3})
    await strict.routing.fit(T, exemplars(), oos=out_of_scope())
    escalated = await strict.route(await _session(strict), "sing a song about the sea")
    assert (escalated.decision, escalated.escalation_reason) == ("ESCALATE", "out_of_scope")


async def test_the_tenants_applied_cascade_threshold_holds_from_the_next_turn(make_engine: EngineFactory) -> None:
    """Issue 25's Apply: a tenant's tuned threshold, read at each turn from the database."""
    answer = json.dumps({"decision": "retrieve", "confidence": 0.95, "reasoning": "factual", "retrieval_needed": True})
    llm = ScriptedLLM(lambda request: answer)
    engine = await _fitted(make_engine, llm)
    sid = await _session(engine)
    mixed = "pricing thanks booking"  # the local router is 0.83 sure
    assert (await engine.route(sid, mixed)).path == "local"
    await engine.tenant_settings.apply(T, "routing.cascade_threshold", ApplyIn(value=0.9, note="ask more"))
    asked = await engine.route(sid, mixed)
    assert asked.path == "llm" and len(llm.requests) == 1
    assert (await engine.route(sid, "thanks for the help")).path == "local"  # 1.0 sure: still local
    await engine.tenant_settings.apply(T, "routing.cascade_threshold", ApplyIn(value=None))
    assert (await engine.route(sid, mixed)).path == "local" and len(llm.requests) == 1


async def test_the_tenants_applied_band_thresholds_hold_from_the_next_turn(make_engine: EngineFactory) -> None:
    """Issue 25's Apply for seed 002's bands: read at each turn, kept on the turn's record."""
    engine = await _fitted(make_engine, retrieval_min_score=0.0)
    await engine.routing.add_documents(T, [DocumentIn(id="a", doc_type="pricing", text="The pro plan price is $49.")])
    sid = await _session(engine, lead_context={"email": "a", "name": "b", "company": "c", "status": "d"})
    before = await engine.route(sid, "price of the pro plan")
    assert before.decision == "RETRIEVE" and before.confidence is not None and before.band == "high"
    await engine.tenant_settings.apply(T, "routing.high_threshold", ApplyIn(value=0.99, note="ask more"))
    medium = await engine.route(sid, "price of the pro plan")
    assert medium.band == "medium"
    record = await engine.decisions.get(T, medium.decision_id)
    assert (record.attributes["bands"]["high"], record.attributes["bands"]["low"]) == (0.99, 0.5)
    await engine.tenant_settings.apply(T, "routing.low_threshold", ApplyIn(value=0.98))
    low = await engine.route(sid, "price of the pro plan")
    assert (low.decision, low.escalation_reason) == ("ESCALATE", "confidence_below_threshold")
    assert "below 0.98" in low.reasoning
    assert await _replays_to_itself(engine) == 3


async def test_a_router_label_that_names_a_tool_yields_to_the_requests_verb(make_engine: EngineFactory) -> None:
    """Issue 47: a router fitted with tools as labels named ``email`` for "change the contact email on
    our account" (the noun); the request changes a record, which the CRM does. The choice is on the
    decision record with the router's label. (The hashing embedder's similarities are low: the floor
    a tool must reach is lowered with them.)"""
    engine: Engine = await make_engine(routing={"tool_min_similarity": 0.05})
    await engine.routing.fit(
        T, [*exemplars(), *_exemplars("email", "USE_TOOL", "email the contact", "send the contact an email")]
    )
    await engine.routing.put_tool(T, CRM)
    await engine.routing.put_tool(T, EMAIL)
    result = await engine.route(await _session(engine), "change the contact email")
    record = await engine.decisions.get(T, result.decision_id)
    assert record.attributes["tool_choice"]["router_label"] == "email"
    assert result.required_tools == ["crm"] and record.attributes["tool_choice"]["verb_owner"] == "crm"


async def test_an_escalation_the_router_chose_is_not_the_user_s_own_request(make_engine: EngineFactory) -> None:
    """Issue 52: the local router's ESCALATE was labelled ``explicit``, the reason of a user who asks
    for a person; the dashboard counted the router's choices as users' requests."""
    engine: Engine = await make_engine()
    angry = [
        "this is unacceptable i am furious",
        "i am very angry with your service",
        "your product is a disgrace",
        "i am fed up with all of this",
        "worst service i have ever had",
        "i am so annoyed with you people",
    ]
    complaints = [Exemplar(text=text, label="complaint", decision="ESCALATE") for text in angry]
    await engine.routing.fit(T, exemplars() + complaints, oos=out_of_scope())
    result = await engine.route(await _session(engine), "i am furious, your service is a disgrace")
    assert (result.decision, result.escalation_reason) == ("ESCALATE", "router_decided")
    asked = await engine.route(await _session(engine), "can I talk to a human please")
    assert (asked.decision, asked.escalation_reason) == ("ESCALATE", "explicit")
