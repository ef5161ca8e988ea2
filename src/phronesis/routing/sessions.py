"""A conversation the router decides within: its messages, CRM context, sources, tool outcomes, mode.

Handoff is a session state, not a message (Parlant's ``manual`` mode): after an escalation
the session is ``human`` and nothing is routed automatically until it is handed back.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import ConfigDict, Field, field_validator

from phronesis.exceptions import InvalidInputError
from phronesis.json_values import JsonObject
from phronesis.routing.dialogue import Pending
from phronesis.schema import Schema

__all__ = ["ID_PATTERN", "Message", "MessageIn", "NewSession", "Session", "SessionMode"]

SessionMode = Literal["auto", "human"]
Role = Literal["user", "assistant", "human_agent", "system"]

ID_PATTERN = r"^[A-Za-z0-9._:@-]+$"


class MessageIn(Schema):
    model_config = ConfigDict(extra="forbid")

    role: Role
    """Who wrote it: ``user`` (the person the agent talks to), ``assistant`` (the agent),
    ``human_agent`` (a person on the team) or ``system`` (a note, e.g. a handback)."""
    text: str = Field(min_length=1, max_length=8000)
    """The message's text (1–8000 characters)."""


class Message(MessageIn):
    model_config = ConfigDict(extra="forbid", frozen=True)

    decision_id: str | None = None
    """For a user message stored by a routing call: that turn's decision id. None for messages
    added otherwise."""
    created_at: datetime
    """When the message was stored (UTC), set by the server."""


class NewSession(Schema):
    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, min_length=1, max_length=64, pattern=ID_PATTERN)
    """The session's id (letters, digits and ``._:@-``, at most 64); a random one when left out.
    An id already in use is a conflict (409)."""
    lead_context: JsonObject = Field(default_factory=dict, max_length=64)
    """CRM data (email, name, status, company, …): shown to the LLM router, counted in context completeness."""
    messages: list[MessageIn] = Field(default_factory=list, max_length=200)
    """Earlier turns, when a conversation started elsewhere."""

    @field_validator("lead_context")
    @classmethod
    def _a_timezone(cls, lead: dict[str, Any]) -> dict[str, Any]:
        """``timezone``, when given, is an IANA name ("Europe/Berlin"): the lead's dates are read in it."""
        zone = lead.get("timezone")
        if zone is None:
            return lead
        try:
            ZoneInfo(zone) if isinstance(zone, str) and zone else None
        except (ZoneInfoNotFoundError, ValueError):
            zone = None
        if not isinstance(zone, str) or not zone:  # named as the field it is, not as its parent
            raise InvalidInputError("lead_context.timezone", "must be an IANA timezone name such as 'Europe/Berlin'")
        return lead


class Session(Schema):
    model_config = ConfigDict(frozen=True)

    id: str
    """The session's id."""
    mode: SessionMode
    """``auto``: each query is routed. ``human``: a person owns the session after an escalation;
    nothing is routed until it is handed back."""
    lead_context: dict[str, Any]
    """The CRM data the session was started with (email, name, company, status, …)."""
    retrieved_sources: list[dict[str, Any]]
    """The knowledge-base sources found in this session, latest first, at most 8 (each ``id``,
    ``doc_type``, ``title``, ``score`` and maybe ``passage``); shown to the LLM router."""
    message_count: int
    """Messages stored in the session, of every role."""
    tool_calls: int
    """Tool outcomes reported for this session."""
    tool_failures: int
    """Of ``tool_calls``, those that failed; tool success rate = 1 − failures / calls."""
    clarifications: int
    """CLARIFY turns in a row (Rasa's two-stage fallback counts them)."""
    escalation_reason: str | None
    """Why the session was last handed to a human (e.g. ``sensitive_topic_detected``,
    ``tool_failure``); kept after a handback. None if it never escalated."""
    escalated_at: datetime | None
    """When the session was last handed to a human (UTC); kept after a handback. None if it never
    escalated."""
    created_at: datetime
    """When the session was created (UTC)."""
    updated_at: datetime
    """When the session last changed (UTC): a message, a turn, a tool outcome or a mode change."""
    pending: Pending | None = None
    """What the session waits for (``routing.dialogue``): a tool call's missing arguments, a yes
    to a tool call, or the answer to a question; the next turn resolves it first. None: nothing."""
    recent_messages: list[Message] = Field(default_factory=list)
    """The latest messages, oldest first; on ``GET`` as many as its ``turns`` asks (20 by default)."""

    @property
    def tool_success_rate(self) -> float:
        """Seed 002: 1.0 when all tools succeeded — and when none has run yet (its own example)."""
        if self.tool_calls == 0:
            return 1.0
        return (self.tool_calls - self.tool_failures) / self.tool_calls
