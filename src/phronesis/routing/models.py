"""What callers send to the router and what they get back."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from phronesis.routing.composite import CompositeConfidence
from phronesis.routing.decisions import Decision
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
RouterPath = Literal["local", "llm", "rule", "fallback", "human_owned"]


class RouteRequest(Schema):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=4000)
    tool_arguments: dict[str, dict[str, Any]] = Field(default_factory=dict, max_length=16)
    """Arguments the agent already has, per tool; merged over the LLM's and the lead context's."""
    critical: bool | None = None
    """A retrieval failure on a critical query escalates. None: decided from ``routing.critical_topics``."""
    router: Literal["local", "llm", "cascade"] | None = None
    """Override ``routing.router`` for this call."""


class RouteResult(Schema):
    decision_id: str
    session_id: str
    status: Literal["routed", "human_owned"]
    decision: Decision | None
    """None only when a human owns the session."""
    confidence: float | None
    band: Band | None
    path: RouterPath
    reasoning: str
    router_confidence: float | None = None
    composite: CompositeConfidence | None = None
    required_tools: list[str] = Field(default_factory=list)
    tool_arguments: dict[str, dict[str, Any]] = Field(default_factory=dict)
    missing_parameters: list[ArgumentProblem] = Field(default_factory=list)
    retrieval_needed: bool = False
    retrieval_query: str | None = None
    sources: list[dict[str, Any]] = Field(default_factory=list)
    conflicts: list[dict[str, Any]] = Field(default_factory=list)
    escalation_reason: str | None = None
    message: str | None = None
    """For the user: the clarifying question, the handoff message or the seed's fallback message."""
    session_mode: SessionMode
    degraded: str | None = None
    """Set when the decision was not made the way the mode asks, and why: e.g. the LLM timed out
    and the local router decided instead. None when everything worked (issue 20)."""


class ToolOutcomeIn(Schema):
    model_config = ConfigDict(extra="forbid")

    tool: str = Field(min_length=1, max_length=64)
    success: bool
    attempt: int = Field(default=1, ge=1, le=100)
    """1 for the first call; each retry adds one."""
    error: str | None = Field(default=None, max_length=2000)
    decision_id: str | None = Field(default=None, max_length=64)


class ToolOutcomeResult(Schema):
    decision_id: str
    next_action: Literal["proceed", "retry", "proceed_without_tool", "escalate", "human_owned"]
    retries_left: int
    tool_success_rate: float
    escalation_reason: str | None = None
    message: str | None = None
    session_mode: SessionMode
