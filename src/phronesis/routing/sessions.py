"""A conversation the router decides within: its messages, CRM context, sources, tool outcomes, mode.

Handoff is a session state, not a message (Parlant's ``manual`` mode): after an escalation
the session is ``human`` and nothing is routed automatically until it is handed back.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from phronesis.json_values import JsonObject
from phronesis.schema import Schema

__all__ = ["ID_PATTERN", "Message", "MessageIn", "NewSession", "Session", "SessionMode"]

SessionMode = Literal["auto", "human"]
Role = Literal["user", "assistant", "human_agent", "system"]

ID_PATTERN = r"^[A-Za-z0-9._:@-]+$"


class MessageIn(Schema):
    model_config = ConfigDict(extra="forbid")

    role: Role
    text: str = Field(min_length=1, max_length=8000)


class Message(MessageIn):
    model_config = ConfigDict(extra="forbid", frozen=True)

    decision_id: str | None = None
    created_at: datetime


class NewSession(Schema):
    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, min_length=1, max_length=64, pattern=ID_PATTERN)
    lead_context: JsonObject = Field(default_factory=dict, max_length=64)
    """CRM data (email, name, status, company, …): shown to the LLM router, counted in context completeness."""
    messages: list[MessageIn] = Field(default_factory=list, max_length=200)
    """Earlier turns, when a conversation started elsewhere."""


class Session(Schema):
    model_config = ConfigDict(frozen=True)

    id: str
    mode: SessionMode
    lead_context: dict[str, Any]
    retrieved_sources: list[dict[str, Any]]
    message_count: int
    tool_calls: int
    tool_failures: int
    clarifications: int
    """CLARIFY turns in a row (Rasa's two-stage fallback counts them)."""
    escalation_reason: str | None
    escalated_at: datetime | None
    created_at: datetime
    updated_at: datetime
    recent_messages: list[Message] = Field(default_factory=list)

    @property
    def tool_success_rate(self) -> float:
        """Seed 002: 1.0 when all tools succeeded — and when none has run yet (its own example)."""
        if self.tool_calls == 0:
            return 1.0
        return (self.tool_calls - self.tool_failures) / self.tool_calls
