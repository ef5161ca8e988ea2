"""What callers send to the router and what they get back."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from phronesis.routing.composite import CompositeConfidence
from phronesis.routing.decisions import Decision
from phronesis.routing.dialogue import Pending
from phronesis.routing.sessions import SessionMode
from phronesis.routing.tools import ArgumentProblem
from phronesis.schema import Schema

__all__ = [
    "Band",
    "RouteRequest",
    "RouteResult",
    "RouterPath",
    "ToolOutcomeIn",
    "ToolOutcomeResult",
]

Band = Literal["high", "medium", "low"]
RouterPath = Literal["local", "llm", "rule", "fallback", "dialogue", "human_owned"]


class RouteRequest(Schema):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=4000)
    """The user's turn, as they wrote it (1–4000 characters); stored in the session as a ``user`` message."""
    tool_arguments: dict[str, dict[str, Any]] = Field(default_factory=dict, max_length=16)
    """Arguments the agent already has, per tool; merged over the LLM's and the lead context's."""
    critical: bool | None = Field(default=None, strict=True)
    """A retrieval failure on a critical query escalates. None: decided from ``routing.critical_topics``."""
    router: Literal["local", "llm", "cascade"] | None = None
    """Override ``routing.router`` for this call."""


class FoundSource(Schema):
    """A knowledge-base source a turn found (``RetrievedSource.summary``)."""

    model_config = ConfigDict(frozen=True)

    id: str
    """The document's id."""
    doc_type: str
    """Its kind (``pricing``, ``sop``, ``policy``, ``faq``, ``general`` …)."""
    title: str = ""
    """Its title (may be empty)."""
    score: float
    """The 0–1 rerank score: 0.6·similarity + 0.2·recency + 0.2·quality."""
    published_at: str | None = None
    """When it was last true (an ISO date); None: undated."""
    superseded_by: str | None = None
    """The newer document of its type that replaces it, where it is kept only because nothing else
    answers (then the answer says it may be out of date)."""
    passage: str | None = None
    """The sentence that matched, when one did rather than the whole document."""


class RouteResult(Schema):
    decision_id: str
    """Id of this turn's decision record, set by the server: quote it in route feedback and tool
    outcomes, or look it up with ``GET /v1/decisions/{id}``."""
    session_id: str
    """The session this turn belongs to."""
    status: Literal["routed", "human_owned"]
    """``routed``: a decision was made. ``human_owned``: a human owns the session, so nothing was
    decided; the user's message was stored for them."""
    decision: Decision | None
    """None only when a human owns the session."""
    confidence: float | None
    """The final confidence, 0–1 (4 decimals): the composite confidence blended with the router's
    (``routing.router_weight``), times the penalties for conflicting sources or a failed retrieval.
    An escalation reports a value below the low threshold. None when a human owns the session."""
    band: Band | None
    """Where ``confidence`` falls: ``high`` at or above the high threshold (0.75 by default),
    ``low`` below the low threshold (0.5 by default), ``medium`` between. None when a human owns
    the session."""
    path: RouterPath
    """What decided: ``local`` the embedding router, ``llm`` the LLM router, ``rule`` a sensitive-topic
    rule (escalated without asking a router), ``fallback`` the local router's answer failed
    validation or no router could decide (escalated), ``dialogue`` the turn answered what the
    session was waiting for (arguments, a yes or a no; ``pending``), ``human_owned`` nothing (a
    human owns the session)."""
    reasoning: str
    """Why, in words: the router's reason and each check that changed the decision."""
    router_confidence: float | None = None
    """The confidence of the decision as first made, 0–1, before the composite and the bands: the
    local router's probability, the LLM's self-reported confidence capped at
    ``routing.llm_confidence_ceiling``, or 0.1 for a rule's or a fallback's escalation. None when a
    human owns the session."""
    composite: CompositeConfidence | None = None
    """The composite confidence with its factors and weights; None when no decision was checked
    (a human owns the session)."""
    required_tools: list[str] = Field(default_factory=list)
    """The registered tools the decision names: for USE_TOOL the tools to call (kept when a USE_TOOL
    became CLARIFY to ask for arguments or a confirmation). Empty otherwise."""
    tool_arguments: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """USE_TOOL: the arguments for each required tool, merged from the lead context, the LLM and
    the request (the request's win)."""
    missing_parameters: list[ArgumentProblem] = Field(default_factory=list)
    """Tool arguments that are missing or fail the tool's JSON Schema; when any are, the decision
    became CLARIFY and ``message`` asks for them."""
    retrieval_needed: bool = False
    """True exactly when the decision is RETRIEVE: answer from the knowledge base."""
    retrieval_query: str | None = None
    """RETRIEVE: the text the knowledge base was searched with (the user's query unless the router
    rewrote it, or a wider second search added the previous user turn). None for other decisions."""
    sources: list[FoundSource] = Field(default_factory=list)
    """The knowledge-base sources this turn found, best first: each its ``id``, ``doc_type``,
    ``title``, ``score`` (the 0–1 rerank score) and, when one sentence matched rather than the
    whole document, ``passage``. Empty when nothing was searched or found."""
    conflicts: list[dict[str, Any]] = Field(default_factory=list)
    """Pairs of found sources of the same doc type that state different figures (prices,
    percentages, durations …): each ``first`` and ``second`` source id and the ``reason``. Any
    conflict multiplies the confidence by ``routing.conflict_penalty`` (0.5 by default)."""
    escalation_reason: str | None = None
    """ESCALATE: why, e.g. ``sensitive_topic_detected``, ``confidence_below_threshold``,
    ``retrieval_failure``, ``repeated_clarification``, ``internal_error``. None for other decisions."""
    message: str | None = None
    """For the user: the clarifying question, the handoff message or, when the turn escalated on an
    error, the error message."""
    session_mode: SessionMode
    """The session's mode after this turn: ``human`` when it escalated or a person already owned it
    (a person owns it until it is handed back), else ``auto``."""
    degraded: str | None = None
    """Set when the decision was not made the way the mode asks, and why: e.g. the LLM timed out
    and the local router decided instead. None when everything worked."""
    pending: Pending | None = None
    """What the session waits for after this turn: a tool call's missing arguments, a yes or a no
    to a tool call, or the answer to a question (``routing.dialogue``); the next turn is read
    against it first. None: nothing is pending."""
    superseded: list[dict[str, Any]] = Field(default_factory=list)
    """Sources set aside for a newer or current document of the same type (each ``id``, ``by`` and
    ``why``): an old price sheet is not a conflict with the current one, and the answer cites the latter."""


class ToolOutcomeIn(Schema):
    model_config = ConfigDict(extra="forbid")

    tool: str = Field(min_length=1, max_length=64)
    """The name of the registered tool that ran (an unregistered name is a 404)."""
    success: bool = Field(strict=True)
    """Whether the tool call succeeded; every report moves the session's tool success rate."""
    attempt: int = Field(default=1, ge=1, le=100)
    """1 for the first call; each retry adds one."""
    error: str | None = Field(default=None, max_length=2000)
    """What went wrong, when it failed; stored with the outcome."""
    decision_id: str | None = Field(default=None, max_length=64)
    """The routing decision (``RouteResult.decision_id``) that asked for the tool, if known; stored
    with the outcome."""


class ToolOutcomeResult(Schema):
    decision_id: str
    """Id of the decision record this report made, set by the server (not the routing decision's)."""
    next_action: Literal["proceed", "retry", "proceed_without_tool", "escalate", "human_owned"]
    """What the agent should do next: ``proceed`` (it succeeded), ``retry`` (it failed and may be
    retried), ``proceed_without_tool`` (retries used up on a non-critical tool), ``escalate``
    (retries used up on a critical tool: the session goes to a human), ``human_owned`` (a human
    already owns the session and decides)."""
    retries_left: int
    """With ``retry``: how many retries remain after this one failed (``routing.max_tool_retries``,
    at most 3, less those used); 0 for every other action."""
    tool_success_rate: float
    """The session's tool success rate after this report, 0–1: successful calls / calls (1.0
    before any call); the next turn's composite confidence uses it."""
    escalation_reason: str | None = None
    """``tool_failure`` when the action is ``escalate``; None otherwise."""
    message: str | None = None
    """For the user when the action is ``escalate``: the configured error message; None otherwise."""
    session_mode: SessionMode
    """The session's mode after this report: ``human`` after an escalation or while a person owns
    it, else ``auto``."""
