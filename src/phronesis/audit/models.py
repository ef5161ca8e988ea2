"""The decision record: one row for every decision any decision point makes."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from phronesis.schema import Schema

__all__ = ["DecisionKind", "DecisionRecord", "NewDecisionRecord", "OutcomeSummary", "PathCount"]

DecisionKind = Literal["executive", "reevaluation", "learning", "routing", "admission", "proactive", "setting"]
"""``reevaluation``: an executive event decided again in the sleep cycle (F-25), never an A/B arm."""


class NewDecisionRecord(Schema):
    """What a decision point writes; the store adds ``created_at``."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64)
    """The response id a caller quotes back with feedback."""
    tenant: str = Field(min_length=1, max_length=64)
    kind: DecisionKind
    subject_id: str | None = Field(default=None, max_length=256)
    """Event id, query id, run id or user id: what the decision was about."""
    strategy: str | None = Field(default=None, max_length=64)
    path: str = Field(min_length=1, max_length=32)
    """Which way it went: heuristic / llm / fallback / rejected, or the decision point's own."""
    action: str | None = None
    confidence: float | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)
    prompt: str | None = None
    raw_llm_output: str | None = None
    model: str | None = Field(default=None, max_length=128)
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    llm_calls: int | None = Field(default=None, ge=0)
    """Requests sent to the LLM for this decision (None: not counted, e.g. recorded before 0009)."""
    reason: str | None = Field(default=None, max_length=256)
    attributes: dict[str, Any] = Field(default_factory=dict)


class DecisionRecord(NewDecisionRecord):
    model_config = ConfigDict(extra="forbid", frozen=True)

    outcome: str | None = None
    outcome_at: datetime | None = None
    created_at: datetime


class PathCount(Schema):
    strategy: str | None
    path: str
    count: int


class OutcomeSummary(Schema):
    strategy: str | None
    path: str
    outcome: str | None
    count: int
    mean_confidence: float | None
    prompt_tokens: int
    completion_tokens: int
    llm_calls: int = 0
    uncounted: int = 0
    """Records with no ``llm_calls`` (written before it was counted)."""
