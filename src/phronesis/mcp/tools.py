"""phronesis's decision points as MCP tools, for agents and agent IDEs that call tools
through the Model Context Protocol rather than HTTP.

Each tool is a thin adapter over the engine call its ``/v1`` endpoint makes, with the same
validation (the request models) and the same answer (the response models, as structured
output). The descriptions are written for the LLM that chooses among tools: when to call it,
what to pass, what comes back. Bad input is a tool error naming the field; nothing is written.

Which tenant a call acts for is a ``TenantOf``: the API key of the HTTP request that carried it
(``mcp.http``), or the one tenant a stdio server was started for (``phronesis mcp``).
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from phronesis import __version__
from phronesis.admission.models import AdmissionResult, RunIn
from phronesis.api.bodies import MatchResponse, RunHits
from phronesis.audit.models import DecisionRecord
from phronesis.engine import Engine
from phronesis.exceptions import InvalidInputError, NotFoundError, PhronesisError, validated
from phronesis.executive.events import EventDecision, EventRequest
from phronesis.feedback.models import Feedback, FeedbackReceipt
from phronesis.learning.models import Observation, ObservedEvent
from phronesis.mcp.arguments import ArgumentCheck
from phronesis.proactive.models import Preview, PreviewIn
from phronesis.routing.models import RouteRequest, RouteResult
from phronesis.routing.sessions import NewSession

__all__ = ["INSTRUCTIONS", "TenantOf", "build_server", "fixed_tenant"]

TenantOf = Callable[[Context], str]
"""The tenant a tool call acts for, from its request context (raises ``ToolError`` when none)."""


def fixed_tenant(tenant: str) -> TenantOf:
    """One tenant for every call: a stdio server acts for the tenant it was started for."""
    return lambda _: tenant


T = TypeVar("T", bound=BaseModel)
F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")

INSTRUCTIONS = (
    "phronesis decides for an agent and learns from what happened next. Use decide_event when something "
    "happens that the agent may act on (a learned heuristic answers at once, else the LLM); route_turn for "
    "each user message of a conversation (RETRIEVE, REASON_ONLY, USE_TOOL, CLARIFY or ESCALATE); admit_run "
    "when an agent run has finished, to keep or skip it in memory; search_runs to recall similar past runs; "
    "give_feedback once the outcome of a decision is known; observe_event for events that may undo or "
    "ignore recent heuristic fires; preview_proactive to see what a user's proactive cycle would send now. "
    "Every decision is recorded: read phronesis://decisions/{response_id} to see why it went as it did."
)

Text = Annotated[str, Field(description="The text, in the user's or the system's own words.")]


def _parsed(model: type[T], fields: dict[str, Any]) -> T:
    """The request model, validated as the HTTP API validates it (unset fields keep their defaults)."""
    try:
        return validated(model, {k: v for k, v in fields.items() if v is not None})
    except InvalidInputError as error:
        raise ToolError(f"{error.field}: {error.message}") from None


async def _answer(call: Awaitable[R]) -> R:
    """The engine's answer, or its refusal as a tool error the calling LLM can read and correct."""
    try:
        return await call
    except InvalidInputError as exc:
        raise ToolError(f"{exc.field}: {exc.message}") from None
    except NotFoundError as exc:
        raise ToolError(str(exc)) from None
    except PhronesisError as exc:  # a conflict, an outage: said as it is, never as a success
        raise ToolError(str(exc)) from None


@contextlib.contextmanager
def _logging_left_alone() -> Iterator[None]:
    """``MCPServer()`` calls ``logging.basicConfig``: in a server process that would print every
    library's INFO lines through a handler of its own. ``basicConfig`` does nothing where the root
    logger has a handler, so one stands there while the server is built; phronesis's logging
    (``phronesis.logs``) carries the SDK's warnings."""
    root = logging.getLogger()
    placeholder = logging.NullHandler()
    root.addHandler(placeholder)
    try:
        yield
    finally:
        root.removeHandler(placeholder)


def build_server(engine: Engine, tenant_of: TenantOf) -> MCPServer:
    """An MCP server whose tools act on ``engine`` for the tenant ``tenant_of`` names."""
    check = ArgumentCheck()
    with _logging_left_alone():
        server: MCPServer = MCPServer(
            name="phronesis",
            title="phronesis decision engine",
            version=__version__,
            instructions=INSTRUCTIONS,
            middleware=[check],
        )
    check.server = server
    _decision_tools(server, engine, tenant_of)
    _memory_tools(server, engine, tenant_of)
    _resources(server, engine, tenant_of)
    return server


READS = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)


def _tool(server: MCPServer, annotations: ToolAnnotations) -> Callable[[F], F]:
    """Register a tool described by its docstring without the source's indentation (an LLM reads it)."""

    def register(fn: F) -> F:
        server.add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""), annotations=annotations)
        return fn

    return register


def _decision_tools(server: MCPServer, engine: Engine, tenant_of: TenantOf) -> None:
    """Seed 000's decide and observe, feedback, seed 002's routing, seed 004's preview."""

    @_tool(server, WRITES)
    async def decide_event(
        text: Text,
        ctx: Context,
        source: Annotated[str | None, Field(description="Where the event came from (e.g. 'email', 'home').")] = None,
        urgency: Annotated[
            float | None, Field(ge=0.0, le=1.0, description="0 (can wait) to 1 (act now); default 0.")
        ] = None,
        immediate: Annotated[
            bool | None, Field(description="Whether an answer is needed now (default true); else no LLM is asked.")
        ] = None,
        user_id: Annotated[str | None, Field(description="The user the event concerns, if any.")] = None,
        strategy: Annotated[
            Literal["heuristic_first", "urgency_tiered", "always_llm"] | None,
            Field(description="Decide this event by this strategy; omit for the tenant's own."),
        ] = None,
        event_id: Annotated[
            str | None, Field(description="Your id for the event (kept on the record; a repeat is answered once).")
        ] = None,
        salience: Annotated[
            dict[str, float] | None,
            Field(
                description="How the event scores on salience dimensions, each 0-1 (threat, opportunity, "
                "novelty, ...); a high threat takes the emergency path."
            ),
        ] = None,
        reply_to: Annotated[
            str | None, Field(description="The event_id of the earlier event this one answers (a follow-up).")
        ] = None,
        goals: Annotated[
            list[str] | None, Field(description="The user's current goals, shown to the LLM when it is asked.")
        ] = None,
        personality_biases: Annotated[
            dict[str, float] | None, Field(description="Biases -1..1 that tilt the LLM's answer (e.g. caution).")
        ] = None,
        candidates: Annotated[
            list[dict[str, Any]] | None,
            Field(description="Heuristic candidates your own matcher found (id, condition, action, confidence)."),
        ] = None,
    ) -> EventDecision:
        """Decide how to respond to an event: fire a learned heuristic when one matches confidently
        (no LLM call), else ask the LLM. Returns the response text, the path taken (heuristic, llm,
        fallback, rejected), the heuristic fired if any, and the response_id to give feedback on."""
        request = _parsed(
            EventRequest,
            {
                "text": text,
                "source": source,
                "urgency": urgency,
                "immediate": immediate,
                "user_id": user_id,
                "strategy": strategy,
                "event_id": event_id,
                "salience": salience,
                "reply_to": reply_to,
                "goals": goals,
                "personality_biases": personality_biases,
                "candidates": candidates,
            },
        )
        return await _answer(engine.executive.decide_event(tenant_of(ctx), request))

    @_tool(server, WRITES)
    async def observe_event(
        text: Text,
        event_id: Annotated[str, Field(description="The event's own id (an observed event is counted once).")],
        ctx: Context,
        source: Annotated[str | None, Field(description="Where the event came from.")] = None,
    ) -> Observation:
        """Report an event that happened without asking for a decision: an event that undoes what a
        heuristic recently did (the user reopened the window it closed) lowers that heuristic's
        confidence; one that ignores it counts as ignored. Returns the signals it produced."""
        event = _parsed(ObservedEvent, {"text": text, "event_id": event_id, "source": source})
        return await _answer(engine.learning.observe(tenant_of(ctx), event))

    @_tool(server, WRITES)
    async def give_feedback(
        response_id: Annotated[str, Field(description="The response_id of the decision being rated.")],
        ctx: Context,
        rating: Annotated[
            Literal["positive", "negative"] | None, Field(description="Whether the decision turned out right.")
        ] = None,
        user_score: Annotated[int | None, Field(ge=1, le=3, description="Or a user's 1-3 score.")] = None,
        comment: Annotated[str | None, Field(description="Why, in a sentence (kept with the rating).")] = None,
    ) -> FeedbackReceipt:
        """Rate a decision once its outcome is known (give exactly one of rating or user_score).
        A fired heuristic's confidence moves with it; a rating given twice is refused."""
        if (rating is None) == (user_score is None):
            raise ToolError("rating: give exactly one of rating or user_score")
        feedback = _parsed(
            Feedback, {"response_id": response_id, "rating": rating, "user_score": user_score, "comment": comment}
        )
        return await _answer(engine.give_feedback(tenant_of(ctx), feedback))

    @_tool(server, WRITES)
    async def route_turn(
        query: Annotated[str, Field(description="The user's message, as they wrote it.")],
        ctx: Context,
        session_id: Annotated[
            str | None,
            Field(description="The conversation's session_id from an earlier route_turn; omit to start one."),
        ] = None,
        tool_arguments: Annotated[
            dict[str, dict[str, Any]] | None,
            Field(
                description="Arguments you already have for a tool, by tool name ({'calendar': {'time': "
                "'2026-03-05T14:00:00+01:00'}}): they win over what is read from the message, and name the tool "
                "the message is about (an answer to a CLARIFY asking for them)."
            ),
        ] = None,
        critical: Annotated[
            bool | None,
            Field(description="Whether a failed knowledge-base search must escalate; omit to decide by topic."),
        ] = None,
        router: Annotated[
            Literal["local", "llm", "cascade"] | None,
            Field(description="Decide this turn with this router; omit for the configured one."),
        ] = None,
        lead_context: Annotated[
            dict[str, Any] | None,
            Field(
                description="Only when starting a session (no session_id): what you know of the person "
                "(email, name, company, timezone, ...)."
            ),
        ] = None,
    ) -> RouteResult:
        """Decide what to do with a user's message in a conversation: RETRIEVE from the knowledge
        base, REASON_ONLY, USE_TOOL (with the tool and its arguments), CLARIFY (with a question to
        ask) or ESCALATE to a person (with the reason). Returns the decision with its confidence
        and the session_id to pass with the conversation's next message."""
        tenant = tenant_of(ctx)
        fields = {"query": query, "tool_arguments": tool_arguments, "critical": critical, "router": router}
        request = _parsed(RouteRequest, fields)
        if session_id is None:
            new = _parsed(NewSession, {"lead_context": lead_context})
            await _answer(engine.quotas.reserve(tenant, "sessions", 1))
            session_id = (await _answer(engine.routing.create_session(tenant, new))).id
        elif lead_context is not None:
            raise ToolError("lead_context: only a new session takes a lead context (omit session_id)")
        return await _answer(engine.routing.route(tenant, session_id, request))

    @_tool(server, READS)
    async def preview_proactive(
        user_id: Annotated[str, Field(description="The user whose proactive cycle to preview.")],
        ctx: Context,
        at: Annotated[
            str | None,
            Field(
                description="The time to decide at, ISO 8601 with offset (2026-11-27T09:00:00+01:00); now if omitted."
            ),
        ] = None,
    ) -> Preview:
        """What a user's proactive cycle would decide now (or at a given time): send a message, defer
        it, or stay silent, with the candidates, their scores and the reason. Nothing is sent or
        written."""
        preview = _parsed(PreviewIn, {"user_id": user_id, "at": at})
        return await _answer(engine.proactive.preview(tenant_of(ctx), preview))


def _memory_tools(server: MCPServer, engine: Engine, tenant_of: TenantOf) -> None:
    """Seed 003's admission and recall of runs; heuristic memory's matches."""

    @_tool(server, WRITES)
    async def admit_run(
        task: Annotated[str, Field(description="What the run was asked to do.")],
        outcome: Annotated[Literal["success", "failure", "partial"], Field(description="How it ended.")],
        ctx: Context,
        summary: Annotated[str | None, Field(description="What it did and found; omit to summarise the steps.")] = None,
        steps: Annotated[
            list[str] | None, Field(description="The run's trace: tool calls, observations, messages.")
        ] = None,
        agent_id: Annotated[str | None, Field(description="The agent that ran it (default 'default').")] = None,
        user_id: Annotated[str | None, Field(description="The user it ran for: runs are compared per user.")] = None,
        error: Annotated[str | None, Field(description="The error a failed run ended with.")] = None,
        id: Annotated[str | None, Field(description="Your id for the run; a random one when omitted.")] = None,
        task_id: Annotated[
            str | None, Field(description="Your id for the task: runs of one task_id are the same task.")
        ] = None,
        references: Annotated[
            list[str] | None, Field(description="What the run read: URLs, file paths, document ids.")
        ] = None,
        artifacts: Annotated[
            list[str] | None, Field(description="What the run produced: files, commits, tickets.")
        ] = None,
        usage_count: Annotated[
            int | None, Field(description="How many times the run's result was used (default 1).")
        ] = None,
        replaces: Annotated[
            str | None, Field(description="The id of a stored run this one replaces, when you know it.")
        ] = None,
        attributes: Annotated[dict[str, Any] | None, Field(description="Free-form metadata kept with the run.")] = None,
    ) -> AdmissionResult:
        """Offer a finished agent run to memory: ADD it, NOT (a duplicate or not worth keeping),
        REPLACE an older run of the same task, or MERGE with similar ones. Returns the decision, the
        stage that made it, the similar runs it was compared with, and why."""
        run = _parsed(
            RunIn,
            {
                "task": task,
                "outcome": outcome,
                "summary": summary,
                "steps": steps,
                "agent_id": agent_id,
                "user_id": user_id,
                "error": error,
                "id": id,
                "task_id": task_id,
                "references": references,
                "artifacts": artifacts,
                "usage_count": usage_count,
                "replaces": replaces,
                "attributes": attributes,
            },
        )
        await _answer(engine.quotas.reserve(tenant_of(ctx), "runs", 1))
        return await _answer(engine.admission.admit(tenant_of(ctx), run))

    @_tool(server, READS)
    async def search_runs(
        query: Annotated[str, Field(min_length=1, description="What to recall, e.g. the task at hand.")],
        ctx: Context,
        k: Annotated[int, Field(ge=1, le=100, description="How many runs at most.")] = 5,
        agent_id: Annotated[str, Field(description="The agent whose runs to search.")] = "default",
        user_id: Annotated[str, Field(description="The user whose runs to search ('' for none).")] = "",
        min_similarity: Annotated[
            float | None, Field(ge=-1.0, le=1.0, description="No run less similar (default: the server's floor).")
        ] = None,
    ) -> RunHits:
        """Recall the stored runs most similar to a query, best first (superseded runs left out), to
        reuse what worked before or avoid what failed."""
        search = engine.admission.search(
            tenant_of(ctx), query, agent_id=agent_id, user_id=user_id, k=k, min_similarity=min_similarity
        )
        hits = await _answer(search)
        return RunHits(hits=hits)

    @_tool(server, READS)
    async def match_heuristics(
        text: Text,
        ctx: Context,
        k: Annotated[int | None, Field(ge=1, le=100, description="How many at most.")] = None,
        source: Annotated[
            str | None, Field(description="The event's source: its domain's heuristics and those with no domain.")
        ] = None,
        min_similarity: Annotated[
            float | None,
            Field(
                ge=-1.0, le=1.0, description="The least similarity to match; omit for the server's (as decide_event)."
            ),
        ] = None,
    ) -> MatchResponse:
        """The learned heuristics whose condition matches a text, with similarity and confidence:
        what decide_event would consider, without deciding or recording anything. Nothing below
        the server's similarity floor matches unless min_similarity is lowered."""
        matches = await _answer(
            engine.heuristics.match(
                tenant_of(ctx), text, source=source, k=k, min_similarity=min_similarity, include_general=True
            )
        )
        return MatchResponse(matches=matches)


def _resources(server: MCPServer, engine: Engine, tenant_of: TenantOf) -> None:
    """Each decision's record, to explain it (``GET /v1/decisions/{id}``)."""

    @server.resource(
        "phronesis://decisions/{response_id}",
        name="decision",
        description="One decision record: its inputs, candidates, the rule or prompt and raw LLM output, "
        "why it went as it did, and its outcome and feedback.",
        mime_type="application/json",
    )
    async def decision(response_id: str, ctx: Context) -> str:
        try:
            record: DecisionRecord = await engine.decisions.get(tenant_of(ctx), response_id)
        except NotFoundError as exc:  # another tenant's decision is as absent as no decision
            raise ResourceNotFoundError(str(exc)) from None
        except PhronesisError as exc:
            raise ResourceError(f"{type(exc).__name__}: {exc}") from None
        return record.model_dump_json()
