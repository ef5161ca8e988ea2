"""Seed 002's decision point, end to end: the pipeline every phronesis decision follows.

input (query, session) → cheap stage (sensitive topics; the local router) → expensive
stage (the LLM router, only when the local one is not sure, and only if configured) →
check (seed validation, tool arguments, retrieval when asked, composite confidence and
its bands, escalation) → record + effects (decision record, the session's message,
sources, clarification streak and mode, in one transaction).

The LLM call and retrieval run before the write transaction, so a slow model never holds
a database lock; the write re-reads the session's mode under a row lock, and a session a
human took over meanwhile is not routed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from phronesis.audit.models import DecisionKind, NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.clock import Clock
from phronesis.decision import Verdict, decide
from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import EmbeddingError, InvalidInputError
from phronesis.faults import Fault
from phronesis.ids import new_id
from phronesis.llm.structured import StructuredFailure
from phronesis.llm.types import LLMProvider, LLMResponse
from phronesis.routing import questions
from phronesis.routing.arguments import (
    Extracted,
    completed_tools,
    evidenced_tools,
    extract,
    free_text,
    in_zone,
    lead_timezone,
    read_all,
)
from phronesis.routing.bands import Bands, Evidence, Settled, recorded, settle, wants_more
from phronesis.routing.composite import (
    CompositeConfidence,
    compose,
    context_completeness,
    query_complexity,
    source_quality,
)
from phronesis.routing.decisions import (
    FALLBACK_CONFIDENCE,
    Decision,
    DecisionOutput,
    EscalationReason,
    validate_output,
)
from phronesis.routing.dialogue import Pending, acknowledges, asks_to_do, plain_yes, reply_to
from phronesis.routing.llm_router import LLMRouter, RouterHints
from phronesis.routing.local_router import LocalPrediction
from phronesis.routing.models import RouteRequest, RouteResult, RouterPath
from phronesis.routing.questions import leans_on_history
from phronesis.routing.retrieval import RetrievalError, RetrievalResult, Retriever
from phronesis.routing.routers import RouterResolver
from phronesis.routing.sensitive import TopicMatcher, asks_a_question, asks_for_a_person, only_questions
from phronesis.routing.session_repository import SessionRepository, TurnEffects
from phronesis.routing.sessions import MessageIn, Session
from phronesis.routing.settings import RoutingSettings
from phronesis.routing.tool_choice import ToolChoice, ToolChooser, verb_owner
from phronesis.routing.tools import ArgumentProblem, Tool, ToolRepository, argument_problems
from phronesis.storage.database import Database
from phronesis.storage.point_transaction import PointTransaction
from phronesis.tuning import TenantValues

__all__ = ["RoutingParts", "RoutingService"]

log = logging.getLogger("phronesis.routing")

_ERROR_REASONS = {
    EscalationReason.RESPONSE_GENERATION_ERROR.value,
    EscalationReason.RETRIEVAL_FAILURE.value,
    EscalationReason.TOOL_FAILURE.value,
    EscalationReason.INTERNAL_ERROR.value,
}


def _a_call(output: DecisionOutput, tool: str, why: str, *, arguments: dict[str, Any] | None = None) -> DecisionOutput:
    """The turn the router could not place, as a call to ``tool``: what the router made of it (its
    question, its escalation, its out-of-scope reading) no longer stands, so the call's own checks
    ask what it still needs."""
    update: dict[str, Any] = {
        "decision": Decision.USE_TOOL,
        "required_tools": [tool],
        "escalation_reason": None,
        "clarifying_question": None,
        "intent": None,
        "reasoning": f"{output.reasoning}; {tool}: {why}",
    }
    if arguments is not None:
        update["tool_arguments"] = {tool: arguments}
    return output.model_copy(update=update)


def _verdict(turn: _Turn, output: DecisionOutput) -> Verdict[DecisionOutput | None]:
    """A routing output as the skeleton's verdict: the path the turn took, and the router's reasoning."""
    return Verdict(output, turn.path, output.reasoning)


def _nothing_decided(why: str) -> DecisionOutput:
    """Seed 002's ``internal_error``: no router could decide the turn."""
    return DecisionOutput(
        decision=Decision.ESCALATE,
        confidence=FALLBACK_CONFIDENCE,
        reasoning=f"nothing could decide: {why}",
        escalation_reason=EscalationReason.INTERNAL_ERROR.value,
    )


@dataclass(frozen=True, slots=True)
class RoutingParts:
    database: Database
    sessions: SessionRepository
    tools: ToolRepository
    retriever: Retriever
    routers: RouterResolver
    decisions: DecisionRecordRepository
    embedder: Embedder
    llm: LLMProvider | None
    clock: Clock
    tenant_settings: TenantValues | None = None
    """A tenant's applied cascade and band thresholds; None: the configured ones."""


@dataclass(frozen=True, slots=True)
class RouteCall:
    """A routing decision's input: the session it continues and the turn's request."""

    session_id: str
    request: RouteRequest


@dataclass(slots=True)
class _Turn:
    """Everything one routing call learns, gathered for the record."""

    query: str
    session: Session
    mode: str
    """The router mode this turn used: the request's override, else ``routing.router``."""
    bands: Bands
    cascade_threshold: float
    """The tenant's thresholds for this turn: applied ones, else the configured ones."""
    tenant: str
    request: RouteRequest
    started: float
    """``clock.monotonic()`` when the turn arrived: the record's latency counts from it."""
    decision_id: str = field(default_factory=new_id)
    """The turn's decision, named before it is decided: its record, message and pending call carry it."""
    tools: dict[str, Tool] = field(default_factory=dict)
    """The tenant's registered tools, by name (none read for a session a human owns, unless the turn
    names tools: its ``tool_arguments`` are checked all the same)."""
    confidence: float | None = None
    """The composite confidence the check settled on."""
    result: RouteResult | None = None
    """What the caller gets, as the effects found it (a turn a human took over meanwhile is superseded)."""
    record_reason: str | None = None
    path: RouterPath = "local"
    router_confidence: float | None = None
    reason: str | None = None
    local: LocalPrediction | None = None
    query_vector: Vectors | None = None
    """The query's embedding, once the local router computed it (tool choice reuses it)."""
    router_source: str | None = None
    prompt: str | None = None
    raw_output: str | None = None
    model: str | None = None
    prompt_tokens: int | None = None
    llm_calls: int = 0
    """Requests sent to the LLM this turn (each ``decide`` sends one): the record's ``llm_calls``."""
    completion_tokens: int | None = None
    llm_latency_ms: float | None = None
    retrieval: RetrievalResult | None = None
    retrieval_error: str | None = None
    escalated_on_failure: bool = False
    """A failed retrieval on a critical query escalated (so no answer is penalised for it)."""
    retrieved_more: bool = False
    composite: CompositeConfidence | None = None
    missing: list[ArgumentProblem] = field(default_factory=list)
    tool_arguments: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    degraded: str | None = None
    """Why this turn was not decided the way its mode asks (an LLM that failed or is missing)."""
    request_tools: list[str] = field(default_factory=list)
    """The registered tools the request's ``tool_arguments`` name: the caller says what this is about."""
    partial: dict[str, dict[str, str]] = field(default_factory=dict)
    """Half-given date-times of the tool call (``routing.arguments``), kept in the pending call."""
    answered: bool = False
    """The turn answered what the session waited for (arguments, a yes): no confirmation is asked
    again, and a follow-up question does not lengthen the clarification streak."""
    confirmed: bool = False
    """The user said yes to this very call."""
    explicit: bool = False
    """The user's message (or the caller) gave a required argument of the call: it is not inferred."""
    confirming: str | None = None
    """The tool this turn's CLARIFY asks to confirm."""
    out_of_scope: bool = False
    """The turn was out of scope: its CLARIFY says what the agent does and is not counted in the streak."""
    now: datetime | None = None
    """Now in the lead's timezone, read once (``_local_now``)."""
    read: dict[str, Extracted] | None = None
    """What the message gives each tool, read once (``_read``)."""
    choice: ToolChoice | None = None
    """The tool choice on this turn's query, made once (``_tool_choice``)."""


class RoutingService:
    def __init__(self, settings: RoutingSettings, parts: RoutingParts) -> None:
        self.settings = settings
        self.parts = parts
        self._sensitive = TopicMatcher(settings.sensitive_topics)
        self._critical_topics = TopicMatcher(settings.critical_topics)
        self._local_fault = Fault("routing's local router", log)
        """An embedder that fails fails every turn: logged once per streak, with its cause."""
        self._tools = ToolChooser(settings.tool_min_similarity, settings.tool_margin, settings.tool_lexical_weight)
        self._llm_router = (
            None
            if parts.llm is None
            else LLMRouter(
                parts.llm,
                temperature=settings.temperature,
                max_tokens=settings.max_tokens,
                history_turns=settings.history_turns,
            )
        )

    # -- the cheap and expensive stages ---------------------------------------------------

    async def _local(self, tenant: str, turn: _Turn) -> LocalPrediction:
        router, source = await self.parts.routers.for_tenant(tenant)
        turn.router_source = source
        with self._local_fault.watching(EmbeddingError):
            turn.query_vector = await self.parts.embedder.embed([turn.query])
        predictions = await router.predict_off_loop(
            turn.query_vector, [turn.query], ambiguity_margin=self.settings.ambiguity_margin
        )
        turn.local = predictions[0]
        return turn.local

    async def _local_decision(
        self, tenant: str, turn: _Turn, tools: list[Tool], *, llm_may_help: bool
    ) -> DecisionOutput:
        """The local router's decision; if it cannot run (its embedder failed), the LLM's when one may
        still decide, else seed 002's ``internal_error`` escalation. Either way the turn is recorded
        and the user's message kept, with what failed."""
        try:
            prediction = await self._local(tenant, turn)
            output = self._from_local(prediction)
            # an abstention in cascade goes to the LLM: the second opinion is for turns the router decides
            if prediction.abstained == "out_of_scope" and not (llm_may_help and self._llm_router is not None):
                output = await self._in_scope_after_all(tenant, turn, tools) or output
            elif (
                output.decision is Decision.ESCALATE
                and prediction.abstained is None
                and prediction.probability < self.settings.tool_over_escalation
                and tools
            ):
                output = await self._tool_over_escalation(turn, output, prediction, tools)
            output = await self._from_the_conversation(tenant, turn, output, prediction, tools)
            if output.decision is Decision.USE_TOOL and not output.required_tools:
                output = await self._choose_tool(turn, output, prediction, tools)
        except EmbeddingError as exc:
            turn.notes["internal_error"] = f"local router: {exc}"[:500]
            if llm_may_help and self._llm_router is not None:
                turn.degraded = f"the local router failed ({str(exc)[:200]}); decided by the LLM"
                return await self._ask_llm(tenant, turn, tools, fallback=False)
            turn.path = "fallback"
            failed = f"the local router failed: {str(exc)[:200]}"
            turn.degraded = f"{turn.degraded}; {failed}" if turn.degraded else failed
            return _nothing_decided("the local router failed and no LLM could answer")
        turn.path = "local"
        return output

    async def _from_the_conversation(
        self, tenant: str, turn: _Turn, output: DecisionOutput, prediction: LocalPrediction, tools: list[Tool]
    ) -> DecisionOutput:
        """What the words and the conversation say where the router's exemplars cannot:

        - an id, a date or an email a tool needs ("status of 38291?", "tomorrow 10am") says which
          tool the turn feeds, when the router did not place it on a tool;
        - a follow-up ("in transit too?") after an answer from the knowledge base is searched
          with the question it follows;
        - a question the router read as an escalation with no seed trigger (no sensitive topic,
          no ask for a person) that the knowledge base answers well is answered ("can we be billed
          in GBP?" handed the chat to a person)."""
        decision = output.decision
        unsure = (
            decision is Decision.CLARIFY
            or output.intent == "out_of_scope"
            or (decision is Decision.ESCALATE and output.escalation_reason == EscalationReason.ROUTER.value)
        )
        for opinion in (
            self._fed_by_arguments(turn, output, prediction, tools),
            await self._tool_after_all(turn, output, tools, unsure=unsure),
            await self._follow_up(tenant, turn, output, unsure=unsure),
        ):
            if opinion is not None:
                return opinion
        if unsure and decision is not Decision.RETRIEVE:
            return await self._answered_after_all(tenant, turn, output) or output
        return output

    def _fed_by_arguments(
        self, turn: _Turn, output: DecisionOutput, prediction: LocalPrediction, tools: list[Tool]
    ) -> DecisionOutput | None:
        """An id, a date or an email a tool needs says which tool the turn feeds."""
        read = self._read(turn, tools)
        complete = completed_tools(tools, read)
        if output.decision is not Decision.USE_TOOL and len(complete) == 1:  # "Pro for 30 seats"
            fed = complete
        elif output.decision is Decision.RETRIEVE or output.decision is Decision.USE_TOOL:
            return None
        else:
            fed = evidenced_tools(tools, read, ids_only=True)
        if not fed and prediction.abstained == "out_of_scope":  # "tomorrow 10am", alone
            fed = evidenced_tools(tools, read)
        if len(fed) != 1:
            return None
        turn.notes["arguments_name_a_tool"] = fed[0]
        return DecisionOutput(
            decision=Decision.USE_TOOL,
            confidence=max(output.confidence, self.settings.cascade_threshold),
            reasoning=f"{output.reasoning}; the message gives what {fed[0]} needs",
            required_tools=fed,
        )

    async def _tool_after_all(
        self, turn: _Turn, output: DecisionOutput, tools: list[Tool], *, unsure: bool
    ) -> DecisionOutput | None:
        """A tool's description and examples match the turn clearly ("hi, order status pls"), or the
        turn asks for something to be done ("Correct our address to 5 Elm Road.", "Email me the
        pricing sheet") and a tool does it: a question is for the knowledge base, a request to act
        is for a tool, whatever the router's exemplars made of its words."""
        decision = output.decision
        request = asks_to_do(turn.query)
        if decision is Decision.USE_TOOL or not tools or (decision is Decision.ESCALATE and not request):
            return None
        if decision is Decision.RETRIEVE and not request:
            return None  # the router's RETRIEVE stands: "Mark us as interested in the Enterprise plan"
        if decision is Decision.REASON_ONLY and not unsure and acknowledges(turn.query):
            return None
        choice = await self._tool_choice(turn, tools)
        best = choice.chosen
        bar = self.settings.tool_min_similarity if request else self.settings.tool_over_router
        if best is None or choice.scores[best] < bar:
            return None
        turn.notes["tool_over_router"] = choice.explain()
        return DecisionOutput(
            decision=Decision.USE_TOOL,
            confidence=max(output.confidence, self.settings.cascade_threshold),
            reasoning=f"{output.reasoning}; but it is what {best} does ({choice.reason})",
            required_tools=[best],
        )

    async def _follow_up(
        self, tenant: str, turn: _Turn, output: DecisionOutput, *, unsure: bool
    ) -> DecisionOutput | None:
        """A follow-up ("in transit too?") after an answer from the knowledge base, searched with the
        question it follows."""
        follows = output.decision is not Decision.ESCALATE or only_questions(turn.query)
        if not (unsure and follows and turn.session.retrieved_sources and leans_on_history(turn.query)):
            return None
        earlier = [m.text for m in turn.session.recent_messages if m.role == "user"][-1:]
        if not earlier:
            return None
        query = f"{earlier[0]} {turn.query}"
        if await self._retrieve(tenant, turn, query=query, top_k=self.settings.retrieval_top_k):
            assert turn.retrieval is not None
            if turn.retrieval.sources:
                turn.notes["follow_up"] = earlier[0][:200]
                return DecisionOutput(
                    decision=Decision.RETRIEVE,
                    confidence=max(output.confidence, self.settings.cascade_threshold),
                    reasoning=f"{output.reasoning}; a follow-up to the last question, searched with it",
                    retrieval_needed=True,
                    retrieval_query=query,
                )
        turn.retrieval = None
        return None

    async def _answered_after_all(self, tenant: str, turn: _Turn, output: DecisionOutput) -> DecisionOutput | None:
        """A question the router could only ask about, or read as an escalation with no seed trigger
        (no sensitive topic, no ask for a person), that the knowledge base answers well."""
        escalation = output.decision is Decision.ESCALATE
        if not asks_a_question(turn.query) or asks_for_a_person(turn.query):
            return None
        if escalation and not only_questions(turn.query):
            return None  # "how did someone log in?? I think we've been breached" is not only a question
        if not escalation and leans_on_history(turn.query):
            return None  # "How much does it cost?": the seed's vague question is asked about
        if not await self._retrieve(tenant, turn, query=turn.query, top_k=self.settings.retrieval_top_k):
            return None
        assert turn.retrieval is not None
        best = turn.retrieval.sources[0] if turn.retrieval.sources else None
        floor = self.settings.question_over_escalation if escalation else self.settings.question_over_clarify
        if best is None or best.similarity < floor:
            turn.retrieval = None
            return None
        turn.notes["answered_after_all"] = best.summary()
        return DecisionOutput(
            decision=Decision.RETRIEVE,
            confidence=max(0.0, min(1.0, best.score)),
            reasoning=f"{output.reasoning}; but it is a question {best.title or best.id} answers "
            f"(similarity {best.similarity:.2f}) and no escalation rule applies",
            retrieval_needed=True,
        )

    async def _in_scope_after_all(self, tenant: str, turn: _Turn, tools: list[Tool]) -> DecisionOutput | None:
        """The router found the query out of scope, but the tenant's own data says otherwise: it is
        what a registered tool does, or the knowledge base has a source for it. The router knows only
        its exemplars; what the tenant registered is in scope by definition (sales set, dev half:
        the bundled router escalated 41 % of queries where 24 % should be). A question is looked up
        first, a request matched to a tool first ("Do you offer training for new teams?" is not a
        subscription change)."""
        if asks_a_question(turn.query):
            return await self._source_after_all(tenant, turn) or self._tool_out_of_scope(
                await self._tool_choice(turn, tools)
            )
        return self._tool_out_of_scope(await self._tool_choice(turn, tools)) or await self._source_after_all(
            tenant, turn
        )

    @staticmethod
    def _tool_out_of_scope(choice: ToolChoice) -> DecisionOutput | None:
        if choice.chosen is None:
            return None
        return DecisionOutput(
            decision=Decision.USE_TOOL,
            confidence=max(0.0, choice.scores[choice.chosen]),
            reasoning=f"local router: out of scope, but it is what {choice.chosen} does ({choice.reason})",
            required_tools=[choice.chosen],
        )

    async def _source_after_all(self, tenant: str, turn: _Turn) -> DecisionOutput | None:
        try:
            found = await self.parts.retriever.retrieve(tenant, turn.query, top_k=self.settings.retrieval_top_k)
        except RetrievalError:
            return None  # the router's out-of-scope answer stands
        if not found.sources:
            return None
        turn.retrieval = found  # the RETRIEVE it becomes answers from this search, not from a second one
        best = found.sources[0]
        turn.notes["in_scope_after_all"] = {"source": best.summary()}
        return DecisionOutput(
            decision=Decision.RETRIEVE,
            confidence=min(1.0, max(0.0, best.score)),
            reasoning=f"local router: out of scope, but the knowledge base answers it ({best.title or best.id})",
            retrieval_needed=True,
        )

    async def _tool_over_escalation(
        self, turn: _Turn, output: DecisionOutput, prediction: LocalPrediction, tools: list[Tool]
    ) -> DecisionOutput:
        """An unsure escalation by the router's label that a registered tool clearly does (see
        ``tool_over_escalation``); seed 002's sensitive-topic and confidence rules still apply."""
        choice = await self._tool_choice(turn, tools)
        if choice.chosen is None:
            return output
        turn.notes["tool_over_escalation"] = {"escalate_p": round(prediction.probability, 4)} | choice.explain()
        return DecisionOutput(
            decision=Decision.USE_TOOL,
            confidence=max(0.0, choice.scores[choice.chosen]),
            reasoning=f"local router: {prediction.label} (p={prediction.probability:.2f}), but it is what "
            f"{choice.chosen} does ({choice.reason})",
            required_tools=[choice.chosen],
        )

    async def _tool_choice(self, turn: _Turn, tools: list[Tool]) -> ToolChoice:
        """The registered tool the query is closest to, scored on the vector the local router computed;
        made once a turn (the second opinions and the tool check all ask)."""
        assert turn.query_vector is not None  # the local router embedded the query
        if turn.choice is None:
            with self._local_fault.watching(EmbeddingError):
                turn.choice = await self._tools.choose(
                    self.parts.embedder, turn.query_vector, tools, query_text=turn.query
                )
        return turn.choice

    async def _choose_tool(
        self, turn: _Turn, output: DecisionOutput, prediction: LocalPrediction, tools: list[Tool]
    ) -> DecisionOutput:
        """Seed 002 "map to available tools": the tool the request's ``tool_arguments`` name (the caller
        knows what the turn is about), the router's intent when it names a tool, else the tool whose
        description and examples the query is closest to (``tool_choice``); between two close ones,
        the tool the session is waiting on."""
        if len(turn.request_tools) == 1:
            return output.model_copy(update={"required_tools": turn.request_tools})
        choice = await self._tool_choice(turn, tools)
        if prediction.label in {t.name for t in tools}:
            owner = verb_owner(turn.query, prediction.label, tools, choice.scores, self.settings.tool_min_similarity)
            if owner is None:
                return output.model_copy(update={"required_tools": [prediction.label]})
            turn.notes["tool_choice"] = choice.explain() | {"router_label": prediction.label, "verb_owner": owner}
            return output.model_copy(
                update={
                    "required_tools": [owner],
                    "reasoning": f"{output.reasoning}; tool: {owner}, whose verb the request opens with",
                }
            )
        turn.notes["tool_choice"] = choice.explain()
        if choice.chosen is not None:
            return output.model_copy(
                update={"required_tools": [choice.chosen], "reasoning": f"{output.reasoning}; tool: {choice.reason}"}
            )
        by_name = {t.name: t for t in tools}
        fed = evidenced_tools(tools, self._read(turn, tools))
        if choice.close is None and len(fed) == 1:  # "tomorrow 10am": no words for it, but its arguments
            return output.model_copy(
                update={
                    "required_tools": fed,
                    "reasoning": f"{output.reasoning}; the message gives what {fed[0]} needs",
                }
            )
        pending = turn.session.pending.tool if turn.session.pending is not None else None
        if choice.close is not None and pending in choice.close:
            return output.model_copy(
                update={"required_tools": [pending], "reasoning": f"{output.reasoning}; tool: the one pending"}
            )
        if choice.close is not None:
            first, second = (by_name[name] for name in choice.close)
            return output.model_copy(
                update={
                    "decision": Decision.CLARIFY,
                    "reasoning": f"{output.reasoning}; which tool is meant is not clear: {choice.reason}",
                    "clarifying_question": questions.which_tool(first, second),
                }
            )
        # no tool does it: ask what is meant (seed 002's "I need a plan for my team" → CLARIFY),
        # with the documents nearest to it, rather than handing the chat to a person
        return output.model_copy(
            update={
                "decision": Decision.CLARIFY,
                "reasoning": f"{output.reasoning}; no registered tool does it: {choice.reason}",
                "clarifying_question": None,
            }
        )

    def _from_local(self, prediction: LocalPrediction) -> DecisionOutput:
        s = self.settings
        if prediction.abstained == "out_of_scope":
            decision = Decision(s.out_of_scope_decision)
            return DecisionOutput(
                decision=decision,
                confidence=min(1.0, max(0.0, 1.0 - prediction.support)),
                reasoning=f"local router: out of scope (in-scope score {prediction.support:.2f} below threshold)",
                escalation_reason=EscalationReason.OUT_OF_SCOPE.value if decision is Decision.ESCALATE else None,
                intent="out_of_scope",
            )
        if prediction.abstained == "ambiguous":
            first, second = sorted(prediction.decision_probabilities.items(), key=lambda kv: -kv[1])[:2]
            return DecisionOutput(
                decision=Decision.CLARIFY,
                confidence=prediction.probability,
                reasoning="local router: ambiguous between "
                f"{first[0]} ({first[1]:.2f}) and {second[0]} ({second[1]:.2f})",
                clarifying_question=questions.between_decisions(first[0], second[0]),
            )
        output = DecisionOutput(
            decision=prediction.decision,
            confidence=prediction.probability,
            reasoning=f"local router: {prediction.label} (p={prediction.probability:.2f})",
            retrieval_needed=prediction.decision is Decision.RETRIEVE,
            intent=prediction.label,
        )
        if prediction.decision is Decision.ESCALATE:
            output = output.model_copy(update={"escalation_reason": EscalationReason.ROUTER.value})
        return output

    async def _ask_llm(self, tenant: str, turn: _Turn, tools: list[Tool], *, fallback: bool = True) -> DecisionOutput:
        assert self._llm_router is not None
        hints = RouterHints(turn.local.candidates) if turn.local is not None else None
        turn.model = self._llm_router.llm.model_name  # recorded even if the call fails
        turn.llm_calls += 1  # counted before the call: a timeout was a request sent too
        prompt, result = await self._llm_router.decide(turn.query, turn.session, tools, hints)
        turn.path, turn.prompt = "llm", prompt
        if isinstance(result, StructuredFailure):
            turn.raw_output = result.raw_text
            if result.response is not None:
                self._usage(turn, result.response)
            turn.notes["llm_failure"] = {"reason": result.reason, "detail": result.detail}
            if fallback:
                # Seed 002 escalated an LLM error or an invalid answer with the fallback message, and
                # an escalation hands the session to a human: one timeout or one garbled answer
                # (to "Where is my order?") would lose the chat for good. The
                # local router can still decide; the result says it was degraded and why.
                why = result.detail[:300] if result.reason == "llm_error" else f"unusable answer: {result.reason}"
                turn.degraded = f"{why}; decided by the local router"
                return await self._local_decision(tenant, turn, tools, llm_may_help=False)
            if result.reason == "llm_error":  # the local router already failed: nothing can decide
                turn.degraded = f"{turn.degraded}; the LLM failed too: {result.detail[:200]}"
                return _nothing_decided("the local router and the LLM both failed")
            return DecisionOutput(  # the local router failed before: seed 002's ESCALATE, low confidence
                decision=Decision.ESCALATE,
                confidence=FALLBACK_CONFIDENCE,
                reasoning=f"the LLM router's answer was unusable: {result.reason}",
                escalation_reason=EscalationReason.INVALID_DECISION.value,
            )
        turn.raw_output = result.raw_text
        self._usage(turn, result.response)
        value = result.value
        capped = min(value.confidence, self.settings.llm_confidence_ceiling)
        return DecisionOutput.model_validate(value.model_dump() | {"confidence": capped})

    @staticmethod
    def _usage(turn: _Turn, response: LLMResponse) -> None:
        turn.model = response.model
        turn.prompt_tokens = response.usage.prompt_tokens
        turn.completion_tokens = response.usage.completion_tokens
        turn.llm_latency_ms = response.latency_ms

    async def _without_llm(self, turn: _Turn) -> DecisionOutput | None:
        """The seed's rules, then the local router; None when the LLM decides (the ``llm`` mode with an
        LLM, or a cascade whose local router is not confident)."""
        tenant, tools, mode = turn.tenant, list(turn.tools.values()), turn.mode
        if topics := self._sensitive.find(turn.query):  # seed 002: automatic escalation, no LLM call
            turn.path = "rule"
            turn.notes["sensitive_topics"] = topics
            return DecisionOutput(
                decision=Decision.ESCALATE,
                confidence=FALLBACK_CONFIDENCE,
                reasoning=f"sensitive topic: {', '.join(topics)}",
                escalation_reason=EscalationReason.SENSITIVE_TOPIC.value,
            )
        if asks_for_a_person(turn.query):  # seed 002: an explicit ask for a person escalates
            turn.path = "rule"
            return DecisionOutput(
                decision=Decision.ESCALATE,
                confidence=FALLBACK_CONFIDENCE,
                reasoning="the user asked for a person",
                escalation_reason=EscalationReason.EXPLICIT.value,
            )
        if acknowledges(turn.query):
            turn.path = "rule"
            return DecisionOutput(
                decision=Decision.REASON_ONLY,
                confidence=0.9,
                reasoning="an acknowledgement: answered from the conversation",
            )
        if mode == "llm" and self._llm_router is not None:
            return None
        if mode == "llm":
            turn.degraded = "llm_unavailable: no LLM is configured; decided by the local router"
        output = await self._local_decision(tenant, turn, tools, llm_may_help=mode == "cascade")
        prediction = turn.local
        if prediction is None:  # the local router failed; ``output`` says how that was handled
            return output
        confident = prediction.abstained is None and prediction.probability >= turn.cascade_threshold
        if mode == "cascade" and not confident and self._llm_router is not None:
            turn.notes["cascade"] = "local router not confident: asked the LLM"
            return None
        return output

    @staticmethod
    def _still_pending(turn: _Turn, output: DecisionOutput) -> DecisionOutput:
        """A tool call is pending and the turn is neither an answer nor a request of its own (the
        router could only ask, or found it out of scope: "anytime after lunch"): the pending call is
        asked for again rather than dropped, so the next answer still completes it."""
        pending = turn.session.pending
        if pending is None or pending.tool is None or turn.path in ("rule", "dialogue"):
            return output
        unplaced = (output.decision is Decision.CLARIFY and not output.required_tools) or (
            output.decision is Decision.ESCALATE and output.escalation_reason == EscalationReason.OUT_OF_SCOPE.value
        )
        if not unplaced:
            return output
        turn.notes["still_pending"] = pending.tool
        return _a_call(output, pending.tool, "asked again, still waiting on it", arguments=pending.arguments)

    def _named_by_caller(self, turn: _Turn, output: DecisionOutput) -> DecisionOutput:
        """The caller passed arguments for exactly one tool, and the router could not place the turn
        (it asked, or escalated without a seed rule): the turn is about that tool (else
        "Thursday at 2pm works" with ``tool_arguments.schedule_demo.time`` escalates as no_suitable_tool)."""
        unsure = (
            output.decision is Decision.CLARIFY
            or (output.decision is Decision.REASON_ONLY and not acknowledges(turn.query))  # "Yes, book it."
            or (
                output.decision is Decision.ESCALATE
                and output.escalation_reason
                in (EscalationReason.OUT_OF_SCOPE.value, EscalationReason.NO_SUITABLE_TOOL.value, None)
            )
        )
        if len(turn.request_tools) != 1 or not unsure or turn.path in ("rule", "dialogue"):
            return output
        turn.answered = True
        return _a_call(output, turn.request_tools[0], "the caller passed arguments for it")

    # -- the checks --------------------------------------------------------------------------

    def _local_now(self, turn: _Turn) -> datetime:
        """Now, in the lead's timezone: "Thursday at 2pm" is the lead's Thursday."""
        if turn.now is None:
            zone = lead_timezone(turn.session.lead_context, self.settings.timezone)
            turn.now = self.parts.clock.now().astimezone(zone)
        return turn.now

    def _read(self, turn: _Turn, tools: Iterable[Tool]) -> dict[str, Extracted]:
        """What the message gives each tool, read once a turn (the second opinions and the arguments
        check all ask; each read is a date parse)."""
        if turn.read is None:
            turn.read = read_all(list(tools), turn.query, now=self._local_now(turn))
        return turn.read

    def _arguments(self, turn: _Turn, request: RouteRequest, output: DecisionOutput, tools: dict[str, Tool]) -> None:
        """USE_TOOL: arguments from the lead context, then the user's words (``routing.arguments``),
        then the LLM's (or the pending call's), then the caller's: the last wins."""
        pending = turn.session.pending
        for name in output.required_tools:
            tool = tools[name]
            known = set(tool.parameters.get("properties", {}))
            merged = {k: v for k, v in turn.session.lead_context.items() if k in known}
            partial = pending.partial if pending is not None and pending.tool == name else {}
            if partial:  # a date given earlier completes a time given now
                given = extract(tool, turn.query, now=self._local_now(turn), partial=partial)
            else:
                given = self._read(turn, tools.values())[name]
            merged |= given.values
            if given.values or request.tool_arguments.get(name):
                turn.explicit = True  # the user's own words (or the caller) gave the call's arguments
            merged |= dict(output.tool_arguments.get(name, {}))
            merged |= request.tool_arguments.get(name, {})
            merged = in_zone(tool, merged, self._local_now(turn))
            turn.tool_arguments[name] = merged
            turn.partial = {k: v for k, v in given.partial.items() if k not in merged}
            turn.missing.extend(argument_problems(tool, merged))

    def _resume(self, turn: _Turn, request: RouteRequest, tools: dict[str, Tool]) -> DecisionOutput | None:
        """The turn read against what the session waits for (``routing.dialogue``): a refusal drops
        the pending call, a yes makes it, arguments fill it. None: the turn is a request of its own
        (routed as usual; the pending call is replaced by whatever it leads to)."""
        pending = turn.session.pending
        if pending is None:
            return None
        turn.notes["pending_before"] = pending.model_dump(exclude_none=True)
        reply = reply_to(turn.query)
        tool = tools.get(pending.tool) if pending.tool is not None else None
        if reply == "no":
            turn.path = "dialogue"
            what = f"the pending call to {tool.name}" if tool is not None else "what they were asked"
            return DecisionOutput(
                decision=Decision.REASON_ONLY,
                confidence=0.9,
                reasoning=f"the user declined {what}: nothing is done",
            )
        if tool is None:
            return None  # a question with no tool behind it: the answer is routed as a query
        if self._sensitive.find(turn.query):
            return None  # "I want my money back" is not an answer: seed 002's escalation rule decides
        given = extract(
            tool, turn.query, now=self._local_now(turn), partial=pending.partial, wanted=set(pending.missing)
        )
        offered = request.tool_arguments.get(tool.name, {})
        if pending.kind == "arguments" and len(pending.missing) == 1 and pending.missing[0] not in given.values:
            # the one thing asked for, in the user's words: "the pricing sheet" for what to send
            plain = not (asks_a_question(turn.query) or asks_to_do(turn.query) or acknowledges(turn.query))
            if reply == "other" and plain:
                answer = free_text(tool, pending.missing[0], turn.query)
                if answer is not None:
                    given.values[pending.missing[0]] = answer
        new = {k: v for k, v in (given.values | offered).items() if pending.arguments.get(k) != v}
        progressed = bool(new) or any(given.partial.get(k) != pending.partial.get(k) for k in given.partial)
        asked = set(pending.missing)
        if asks_a_question(turn.query) and not offered and not (asked & (set(new) | set(given.partial))):
            # "What is your Starter plan pricing?" while a Pro subscription waits for a yes is a question
            # of its own, not a change of plan; "could we do Thursday at 2pm?" still answers the time asked
            return None
        if not progressed and reply != "yes":
            return None
        if not progressed and pending.carried and (pending.kind == "arguments" or not plain_yes(turn.query)):
            return None  # "ok, good" after the answer to a question on the side acknowledges that answer
        turn.path = "dialogue"
        turn.answered = True
        # "yes, but make it 20 seats" changes the call: it is confirmed again, not made
        turn.confirmed = pending.kind == "confirm" and reply == "yes" and not new
        what = "confirmed" if turn.confirmed else f"answered ({', '.join(sorted(new)) or 'yes'})"
        return DecisionOutput(
            decision=Decision.USE_TOOL,
            confidence=0.9,
            reasoning=f"the user {what} the pending call to {tool.name}",
            required_tools=[tool.name],
            tool_arguments={tool.name: pending.arguments | given.values},
        )

    async def _retrieve(self, tenant: str, turn: _Turn, *, query: str, top_k: int) -> bool:
        try:
            turn.retrieval = await self.parts.retriever.retrieve(tenant, query, top_k=top_k)
        except RetrievalError as exc:
            turn.retrieval_error = str(exc)
            return False
        return True

    async def _what_to_ask(self, tenant: str, turn: _Turn, tools: list[Tool]) -> str:
        """A router's CLARIFY came without a question: offer the documents closest to the query (not
        recorded as the turn's sources: nothing was answered from them), else what the tools do."""
        try:
            found = await self.parts.retriever.retrieve(
                tenant, turn.query, top_k=3, min_score=self.settings.clarify_min_score
            )
        except RetrievalError:
            found = RetrievalResult()
        titles = list(dict.fromkeys(s.title for s in found.sources if s.title))
        return questions.which_one(titles, [questions.gist(t) for t in tools[:3]])

    def _critical(self, request: RouteRequest, query: str) -> bool:
        return request.critical if request.critical is not None else bool(self._critical_topics.find(query))

    def _composite(self, turn: _Turn) -> CompositeConfidence:
        s = self.settings
        complexity, complexity_details = query_complexity(turn.query)
        completeness, completeness_details = context_completeness(
            turn.session, s.lead_context_fields, turn.router_confidence or 0.0
        )
        quality: float | None = None
        quality_details: dict[str, Any] = {"applicable": False}
        if turn.retrieval is not None:
            quality, quality_details = source_quality(turn.retrieval.sources)
        return compose(
            s,
            source_quality_value=quality,
            complexity=complexity,
            completeness=completeness,
            tool_success_rate=turn.session.tool_success_rate,
            conflict=bool(turn.retrieval and turn.retrieval.conflict_detected),
            details={
                "query_complexity": complexity_details,
                "context_completeness": completeness_details,
                "source_quality": quality_details,
            },
        )

    def _blend(self, turn: _Turn) -> float:
        """The final confidence: router and composite blended, then the seed's penalties on the whole
        (conflicting sources × 0.5, a failed retrieval answered from context × 0.7)."""
        s = self.settings
        assert turn.composite is not None
        w = s.router_weight
        value = w * (turn.router_confidence or 0.0) + (1 - w) * turn.composite.base
        penalties: dict[str, float] = {}
        if turn.composite.conflict:
            penalties["conflict"] = s.conflict_penalty
        if turn.retrieval_error is not None and not turn.escalated_on_failure:
            penalties["retrieval_failure"] = s.retrieval_failure_penalty
        for factor in penalties.values():
            value *= factor
        turn.notes["penalties"] = penalties
        return max(0.0, min(1.0, value))

    @staticmethod
    def _escalate(output: DecisionOutput, reason: EscalationReason | str, why: str) -> DecisionOutput:
        return output.model_copy(
            update={
                "decision": Decision.ESCALATE,
                "escalation_reason": str(reason),
                "reasoning": f"{output.reasoning}; {why}" if output.reasoning else why,
                "required_tools": [],
            }
        )

    async def _check(
        self, tenant: str, turn: _Turn, request: RouteRequest, output: DecisionOutput, tools: dict[str, Tool]
    ) -> tuple[DecisionOutput, float]:
        s = self.settings
        output, problem = validate_output(output, query=turn.query, registered_tools=tools)
        if problem is not None:
            turn.reason = problem
            turn.path = "fallback" if turn.path == "local" else turn.path
        router_confidence = output.confidence
        if output.decision is Decision.RETRIEVE:
            query = output.retrieval_query or turn.query
            searched = turn.retrieval is not None  # the out-of-scope second opinion searched already
            if not searched and not await self._retrieve(tenant, turn, query=query, top_k=s.retrieval_top_k):
                if self._critical(request, turn.query):
                    turn.escalated_on_failure = True
                    output = self._escalate(
                        output, EscalationReason.RETRIEVAL_FAILURE, "retrieval failed on a critical query"
                    )
                else:  # seed 002: answer without retrieval, confidence × 0.7 (``_blend``)
                    output = output.model_copy(
                        update={
                            "decision": Decision.REASON_ONLY,
                            "retrieval_needed": False,
                            "reasoning": f"{output.reasoning}; retrieval failed, answering from context",
                        }
                    )
        if output.decision is Decision.USE_TOOL:
            self._arguments(turn, request, output, tools)
            if turn.missing:
                fields = ", ".join(f"{p.tool}.{p.field}" for p in turn.missing)
                output = output.model_copy(
                    update={
                        "decision": Decision.CLARIFY,
                        "reasoning": f"{output.reasoning}; missing or invalid tool arguments: {fields}",
                        "clarifying_question": questions.for_arguments(turn.missing, tools),
                    }
                )
            elif (must := [tools[n] for n in output.required_tools if tools[n].confirm]) and not turn.confirmed:
                turn.confirming = must[0].name
                output = output.model_copy(
                    update={
                        "decision": Decision.CLARIFY,
                        "reasoning": f"{output.reasoning}; {must[0].name} is confirmed before it is called",
                        "clarifying_question": questions.to_confirm(must[0], turn.tool_arguments[must[0].name]),
                    }
                )
        if output.decision is Decision.CLARIFY and output.intent == "out_of_scope":
            turn.out_of_scope = True
            actions = [questions.gist(t) for t in list(tools.values())[:5]]
            output = output.model_copy(update={"clarifying_question": questions.what_i_can_do(actions)})
        if output.decision is Decision.CLARIFY and not output.clarifying_question:
            question = await self._what_to_ask(tenant, turn, list(tools.values()))
            output = output.model_copy(update={"clarifying_question": question})
        turn.router_confidence = router_confidence
        turn.composite = self._composite(turn)
        confidence = self._blend(turn)
        return await self._apply_bands(tenant, turn, output, confidence, tools)

    def _evidence(self, turn: _Turn, confidence: float) -> Evidence:
        return Evidence(
            confidence=confidence,
            composite=turn.composite.value if turn.composite is not None else 1.0,
            retrieved=turn.retrieval is not None,
            empty=turn.retrieval is not None and not turn.retrieval.sources,
        )

    async def _apply_bands(
        self, tenant: str, turn: _Turn, output: DecisionOutput, confidence: float, tools: dict[str, Tool]
    ) -> tuple[DecisionOutput, float]:
        """Seed 002's bands (``routing.bands``), with its "retrieve more" made here; what they read
        is recorded (``attributes.bands``) so a replay of the thresholds decides as they did."""
        bands = turn.bands
        if output.decision is Decision.ESCALATE:  # an escalation stands at any band
            turn.notes["bands"] = recorded(output.decision, bands)
            cap = output.confidence if turn.path != "llm" else 1.0
            return output, min(confidence, bands.under_low, cap)
        decision = output.decision
        first = evidence = self._evidence(turn, confidence)
        more_tried = wants_more(decision, first, bands)
        if more_tried:
            # seed 002's "retrieve more": a wider search, with the conversation's last user turn when
            # the query leans on it ("And for the Pro plan?"); a question that stands alone is searched
            # alone (else, after a pricing question, "How many vacation days do I get?" is answered
            # from the price list, high band)
            base = output.retrieval_query or turn.query
            earlier = [m.text for m in turn.session.recent_messages if m.role == "user"][-1:]
            query = " ".join([*earlier, base]) if earlier and leans_on_history(base) else base
            if await self._retrieve(tenant, turn, query=query, top_k=2 * self.settings.retrieval_top_k):
                turn.retrieved_more = True
                if query != base:  # the record says what was searched
                    output = output.model_copy(update={"retrieval_query": query})
                turn.composite = self._composite(turn)
                evidence = self._evidence(turn, self._blend(turn))
        # an answer that moved a tool call on, or small talk, is not the streak of questions Rasa's
        # two-stage fallback hands off after (a booking asks date, then time, then email)
        streak = 0 if turn.answered or turn.out_of_scope else turn.session.clarifications
        most = self.settings.max_clarifications
        # a tool is confirmed in the medium band unless it only reads, or the user or the caller
        # already said which call this is (an answer to our question, the request's tool_arguments)
        named = turn.answered or turn.explicit or bool(turn.request_tools)
        confirm = not named and any(not tools[name].read_only for name in output.required_tools if name in tools)
        settled = settle(
            decision,
            evidence,
            bands,
            retrieved_more=turn.retrieved_more,
            clarifications=streak,
            max_clarifications=most,
            confirm_tools=confirm,
        )
        more = evidence if turn.retrieved_more else None
        kept = recorded(
            decision,
            bands,
            first,
            more_tried=more_tried,
            more=more,
            clarifications=streak,
            max_clarifications=most,
            confirm_tools=confirm,
        )
        turn.notes["bands"] = kept | {"rule": settled.rule}
        settled_output = self._as_settled(turn, output, settled, tools)
        final = settled.confidence
        if settled_output.decision is Decision.CLARIFY:
            final = min(final, bands.under_low)  # seed 002: a CLARIFY's confidence is always low
        return settled_output, final

    def _as_settled(
        self, turn: _Turn, output: DecisionOutput, settled: Settled, tools: dict[str, Tool]
    ) -> DecisionOutput:
        """The decision the bands settled on, with its reasoning and question."""
        confidence, reasoning = settled.confidence, output.reasoning
        match settled.rule:
            case "nothing_found":
                output = output.model_copy(
                    update={
                        "decision": Decision.CLARIFY,
                        "reasoning": f"{reasoning}; retrieval found nothing to answer from",
                        "clarifying_question": questions.nothing_found(),
                    }
                )
            case "composite_low":
                composite = turn.composite.value if turn.composite is not None else 1.0
                why = f"composite confidence {composite:.2f} below {turn.bands.low}"
                return self._escalate(output, EscalationReason.CONFIDENCE_BELOW_THRESHOLD, why)
            case "confidence_low":
                why = f"confidence {confidence:.2f} below {turn.bands.low}"
                return self._escalate(output, EscalationReason.CONFIDENCE_BELOW_THRESHOLD, why)
            case "answered_after_more":
                count = len(turn.retrieval.sources) if turn.retrieval is not None else 0
                more = f"medium confidence {confidence:.2f}: retrieved more, {count} sources"
                return output.model_copy(update={"reasoning": f"{reasoning}; {more}"})
            case "confirm":
                sources = turn.retrieval.sources if turn.retrieval is not None else []
                if output.required_tools and not sources:
                    turn.confirming = output.required_tools[0]
                output = output.model_copy(
                    update={
                        "decision": Decision.CLARIFY,
                        "reasoning": f"{reasoning}; medium confidence {confidence:.2f}: confirm before acting",
                        "clarifying_question": questions.before_acting(
                            sources, [tools[n] for n in output.required_tools if n in tools]
                        ),
                    }
                )
            case "clarify" | "as_is":
                pass
        if settled.handed_off:
            streak = f"{turn.session.clarifications} clarifications in a row"
            return self._escalate(output, EscalationReason.REPEATED_CLARIFICATION, streak)
        return output

    # -- the whole turn ------------------------------------------------------------------------

    async def _applied(self, tenant: str) -> dict[str, float]:
        """The tenant's applied routing thresholds, read at each turn in one read: another process
        (the CLI, another worker) may have applied one since the last turn."""
        if self.parts.tenant_settings is None:
            return {}
        return await self.parts.tenant_settings.applied(tenant, "routing.")

    async def route(self, tenant: str, session_id: str, request: RouteRequest) -> RouteResult:
        """Seed 002 on one turn, through the decision skeleton (``phronesis.decision.decide``: this
        service is routing's ``Stages``)."""
        decided = await decide(self, tenant, RouteCall(session_id, request), records=self.parts.decisions)
        assert decided.context.result is not None  # the effects built it
        return decided.context.result

    # -- routing's stages (``phronesis.decision.Stages``), in the order ``decide`` runs them ---------

    kind: DecisionKind = "routing"

    async def context(self, tenant: str, given: RouteCall) -> _Turn:
        """The session (its last turns, its pending call), the tenant's applied thresholds and its
        tools. A ``tool_arguments`` naming no registered tool is refused here, before anything is
        decided or stored: nothing half-written."""
        started = self.parts.clock.monotonic()
        request = given.request
        session = await self.parts.sessions.get(tenant, given.session_id, turns=self.settings.history_turns)
        applied = await self._applied(tenant)
        turn = _Turn(
            query=request.query,
            session=session,
            mode=request.router or self.settings.router,
            bands=Bands(
                high=applied.get("routing.high_threshold", self.settings.high_threshold),
                low=applied.get("routing.low_threshold", self.settings.low_threshold),
            ),
            cascade_threshold=applied.get("routing.cascade_threshold", self.settings.cascade_threshold),
            tenant=tenant,
            request=request,
            started=started,
        )
        if session.mode == "auto" or request.tool_arguments:  # bad input is refused whoever owns the session
            tools = {t.name: t for t in await self.parts.tools.list(tenant)}
            unknown = sorted(set(request.tool_arguments) - set(tools))
            if unknown:
                known = ", ".join(sorted(tools)) or "none"
                raise InvalidInputError(
                    f"tool_arguments.{unknown[0]}", f"no tool {unknown[0]!r} is registered (registered: {known})"
                )
            turn.tools = tools
            turn.request_tools = list(request.tool_arguments)
        return turn

    async def cheap(self, context: _Turn) -> Verdict[DecisionOutput | None] | None:
        """Nothing for a session a human owns; else the conversation (a pending call answered), the
        seed's rules and the local router; None when the LLM decides."""
        if context.session.mode != "auto":
            return Verdict(None, "human_owned", "a human owns this session; nothing routed")
        output = self._resume(context, context.request, context.tools) or await self._without_llm(context)
        return None if output is None else _verdict(context, output)

    async def expensive(self, context: _Turn) -> Verdict[DecisionOutput | None]:
        """The LLM router (its failures fall back to the local router, saying so: ``_ask_llm``)."""
        return _verdict(context, await self._ask_llm(context.tenant, context, list(context.tools.values())))

    def fallback(self, context: _Turn, why: str) -> Verdict[DecisionOutput | None]:
        """A failure the LLM router did not answer itself: seed 002's ``internal_error`` escalation."""
        return _verdict(context, _nothing_decided(why))

    async def check(self, context: _Turn, verdict: Verdict[DecisionOutput | None]) -> Verdict[DecisionOutput | None]:
        """The turn placed on the caller's tool or the pending call when the router could not place
        it; then seed validation, tool arguments, retrieval, composite confidence and its bands."""
        output = verdict.outcome
        if output is None:
            return verdict
        output = self._named_by_caller(context, output)
        output = self._still_pending(context, output)
        output, context.confidence = await self._check(context.tenant, context, context.request, output, context.tools)
        return _verdict(context, output)

    def transaction(self) -> AbstractAsyncContextManager[PointTransaction]:
        """Point statements, so one point transaction: on a SQLite file three hops to its writer lane
        (lock, message and session, record and commit) rather than an async connection's two dozen."""
        return self.parts.database.point_transaction()

    async def effects(
        self, writes: PointTransaction, context: _Turn, verdict: Verdict[DecisionOutput | None]
    ) -> Verdict[DecisionOutput | None]:
        """The session's message, sources, clarification streak, mode and pending call. The
        session's mode is re-read under a row lock: a turn a human took over meanwhile is superseded."""
        s, turn, tenant, decision_id = self.settings, context, context.tenant, context.decision_id
        output, confidence = verdict.outcome, turn.confidence
        mode = await self.parts.sessions.lock_mode(writes, tenant, turn.session.id)
        if mode == "human" and output is not None:
            turn.notes["superseded"] = "a human took the session over while this turn was being decided"
            output = None
        if output is None:
            turn.path, confidence = "human_owned", None
        reason = turn.reason
        message: str | None = None
        pending: Pending | None = None
        sources = [src.summary() for src in turn.retrieval.sources] if turn.retrieval else []
        effects: TurnEffects | None = None
        if output is not None:
            handed_off = output.decision is Decision.ESCALATE
            if handed_off:
                reason = output.escalation_reason
                mode = "human"
                message = s.error_message if reason in _ERROR_REASONS else s.handoff_message
            elif output.decision is Decision.CLARIFY:
                message = output.clarifying_question or "Could you tell me a little more?"
            pending = self._pending_after(turn, output, decision_id)
            counted = output.decision is Decision.CLARIFY and not (turn.answered or turn.out_of_scope)
            effects = TurnEffects(
                clarified=counted,
                sources=sources,
                handed_off=handed_off,
                reason=reason,
                pending=pending.model_dump(mode="json", exclude_none=True) if pending is not None else None,
            )
        result = RouteResult(
            decision_id=decision_id,
            session_id=turn.session.id,
            status="routed" if output is not None else "human_owned",
            decision=output.decision if output else None,
            confidence=None if confidence is None else round(confidence, 4),
            band=None if confidence is None else turn.bands.band(confidence),
            path=turn.path,
            reasoning=output.reasoning if output else "a human owns this session; nothing routed",
            router_confidence=turn.router_confidence,
            composite=turn.composite,
            required_tools=output.required_tools if output else [],
            tool_arguments=turn.tool_arguments,
            missing_parameters=turn.missing,
            retrieval_needed=bool(output and output.decision is Decision.RETRIEVE),
            retrieval_query=(output.retrieval_query or turn.query)
            if output and output.decision is Decision.RETRIEVE
            else None,
            sources=sources,
            conflicts=[c.model_dump() for c in turn.retrieval.conflicts] if turn.retrieval else [],
            escalation_reason=reason if output and output.decision is Decision.ESCALATE else None,
            message=message,
            session_mode=mode,
            degraded=turn.degraded,
            pending=pending if output is not None else turn.session.pending,
            superseded=[x.model_dump() for x in turn.retrieval.superseded] if turn.retrieval else [],
        )
        await self.parts.sessions.record_turn(
            writes,
            tenant,
            turn.session,
            MessageIn(role="user", text=turn.query),
            decision_id=decision_id,
            effects=effects,
        )
        turn.result, turn.record_reason = result, reason
        return Verdict(output, turn.path, result.reasoning)

    def record(self, context: _Turn, verdict: Verdict[DecisionOutput | None]) -> NewDecisionRecord:
        assert context.result is not None  # the effects built it
        return self._record(
            context.tenant, context.decision_id, context, context.result, context.record_reason, context.started
        )

    @staticmethod
    def _pending_after(turn: _Turn, output: DecisionOutput, decision_id: str) -> Pending | None:
        """What the session waits for after this turn: a CLARIFY leaves something pending; a question
        asked on the side (RETRIEVE, REASON_ONLY by the router, not the dialogue's refusal) leaves the
        tool call that was pending still pending: otherwise, after "Upgrade us to Pro", "12 seats",
        "What is your Starter pricing?", "yes" would find the upgrade forgotten."""
        if output.decision is not Decision.CLARIFY:
            before = turn.session.pending
            aside = output.decision in (Decision.RETRIEVE, Decision.REASON_ONLY) and turn.path != "dialogue"
            if aside and before is not None and before.tool is not None:
                return before.model_copy(update={"carried": True})
            return None
        question = output.clarifying_question
        tool = output.required_tools[0] if output.required_tools else None
        if tool is not None and turn.missing:
            wrong = {p.field for p in turn.missing}
            return Pending(
                kind="arguments",
                tool=tool,
                arguments={k: v for k, v in turn.tool_arguments.get(tool, {}).items() if k not in wrong},
                partial=turn.partial,
                missing=sorted(wrong),
                question=question,
                decision_id=decision_id,
            )
        if turn.confirming is not None:
            return Pending(
                kind="confirm",
                tool=turn.confirming,
                arguments=turn.tool_arguments.get(turn.confirming, {}),
                question=question,
                decision_id=decision_id,
            )
        return Pending(kind="question", question=question, decision_id=decision_id)

    def _record(
        self, tenant: str, decision_id: str, turn: _Turn, result: RouteResult, reason: str | None, started: float
    ) -> NewDecisionRecord:
        attributes: dict[str, Any] = {
            "band": result.band,
            "reasoning": result.reasoning[:500] if result.reasoning else None,  # the words of its explanation
            "router_confidence": turn.router_confidence,
            "router_source": turn.router_source,
            "local": turn.local.explain() if turn.local else None,
            # whether a cascade could ask the LLM: a replay of the threshold adds no call without one
            "llm_configured": self._llm_router is not None,
            "composite": turn.composite.model_dump() if turn.composite else None,
            "sources": [source.model_dump(exclude_none=True) for source in result.sources],
            "conflicts": result.conflicts,
            "retrieval_error": turn.retrieval_error,
            "retrieved_more": turn.retrieved_more,
            "missing_parameters": [p.model_dump() for p in turn.missing],
            "required_tools": result.required_tools,
            "llm_latency_ms": turn.llm_latency_ms,
            "session_mode": result.session_mode,
            "degraded": turn.degraded,
            "pending": result.pending.model_dump(mode="json", exclude_none=True) if result.pending else None,
            "superseded": result.superseded,
        } | turn.notes
        return NewDecisionRecord(
            id=decision_id,
            tenant=tenant,
            kind="routing",
            subject_id=turn.session.id,
            strategy=turn.mode,
            path=result.path,
            action=result.decision.value if result.decision else None,
            confidence=result.confidence,
            inputs={"query": turn.query, "session_id": turn.session.id, "message_count": turn.session.message_count},
            prompt=turn.prompt,
            raw_llm_output=turn.raw_output,
            model=turn.model,
            latency_ms=(self.parts.clock.monotonic() - started) * 1000,
            prompt_tokens=turn.prompt_tokens,
            completion_tokens=turn.completion_tokens,
            llm_calls=turn.llm_calls,
            reason=(reason or "")[:256] or None,
            attributes=attributes,
        )
