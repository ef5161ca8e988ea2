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
    """The tenant whose decision it is."""
    kind: DecisionKind
    """Which decision point made it: ``executive``, ``reevaluation``, ``learning``, ``routing``,
    ``admission``, ``proactive`` or ``setting`` (a tenant setting applied or reset)."""
    subject_id: str | None = Field(default=None, max_length=256)
    """What the decision was about: the event id for ``executive`` and ``reevaluation``, the
    session id for ``routing`` (a turn or a tool report), the run id for ``admission`` (for an
    undo, the id of the admission decision it undid), the user id for ``proactive``, the setting's
    name for ``setting``. None when there is none."""
    strategy: str | None = Field(default=None, max_length=64)
    """How the decision point was set to decide: the executive's strategy (e.g. ``heuristic_first``),
    routing's router mode (``local``, ``llm``, ``cascade``; ``tool_outcome`` for a tool report),
    admission's judge, proactive's path. None where there is none."""
    path: str = Field(min_length=1, max_length=32)
    """Which way it went: heuristic / llm / fallback / rejected, or the decision point's own."""
    action: str | None = None
    """What was decided: the executive's response text, routing's decision (or a tool outcome's next
    action), admission's ADD / NOT / REPLACE / MERGE, proactive's ``sent`` or ``silent``, a
    setting's ``name=value``. None when nothing was decided."""
    confidence: float | None = None
    """The decision's confidence, 0–1 (executive: predicted success; routing: the final
    confidence; proactive: the sent message's score / 10). None where the decision has none."""
    inputs: dict[str, Any] = Field(default_factory=dict)
    """What the decision was given (the event, the query, the run …), as the decision point
    recorded it."""
    prompt: str | None = None
    """The prompt sent to the LLM; None when no LLM was asked."""
    raw_llm_output: str | None = None
    """The LLM's answer as received, before parsing; None when no LLM answered."""
    model: str | None = Field(default=None, max_length=128)
    """The LLM model that was asked; None when none was."""
    latency_ms: float | None = None
    """How long the decision took, in milliseconds, embedding and any LLM call included: the event or
    turn for executive and routing, the admission call for admission (a batch: until its commit), the
    user's cycle for proactive (the LLM's own share is ``attributes.llm_latency_ms`` there). None
    when not measured (a proactive pre-filter block, records of older versions)."""
    prompt_tokens: int | None = None
    """Prompt tokens the LLM reported for this decision; None when no LLM was asked or none were reported."""
    completion_tokens: int | None = None
    """Completion tokens the LLM reported for this decision; None when no LLM was asked or none were reported."""
    llm_calls: int | None = Field(default=None, ge=0)
    """Requests sent to the LLM for this decision (None: not counted, as on records written by
    older versions of the server)."""
    reason: str | None = Field(default=None, max_length=256)
    """A short reason code or note (at most 256 characters): e.g. why an executive decision
    gave no answer, routing's escalation reason, admission's verdict reason."""
    attributes: dict[str, Any] = Field(default_factory=dict)
    """Everything else the decision point recorded to explain and replay the decision (e.g.
    routing's composite confidence and sources); later additions (a rating, the executive's
    convergence check) are merged in."""


class DecisionRecord(NewDecisionRecord):
    model_config = ConfigDict(extra="forbid", frozen=True)

    outcome: str | None = None
    """How the decision turned out, set by later feedback: ``positive`` / ``negative`` /
    ``neutral`` for executive decisions, ``correct`` / ``incorrect`` for rated routing and admission
    decisions, the message's outcome (``engaged``, ``ignored`` …) for proactive ones. None until then."""
    outcome_at: datetime | None = None
    """When ``outcome`` was last set (UTC); None until then."""
    created_at: datetime
    """When the decision was recorded (UTC), set by the server."""
    explanation: str = ""
    """The decision in one sentence, worded from this record by its decision point (what the
    dashboard shows above the record and the CLI prints); empty where the record was read without it."""


class PathCount(Schema):
    strategy: str | None
    """The records' strategy (None: records without one)."""
    path: str
    """The records' path."""
    count: int
    """How many records have this strategy and path."""


class OutcomeSummary(Schema):
    strategy: str | None
    """The records' strategy (None: records without one)."""
    path: str
    """The records' path."""
    outcome: str | None
    """The records' outcome (None: not yet rated)."""
    count: int
    """How many records share this strategy, path and outcome."""
    mean_confidence: float | None
    """Their mean confidence, 0–1; None when none has one."""
    prompt_tokens: int
    """Their prompt tokens, summed."""
    completion_tokens: int
    """Their completion tokens, summed."""
    llm_calls: int = 0
    """Their LLM requests, summed (records that did not count them add nothing)."""
    uncounted: int = 0
    """Records with no ``llm_calls`` (written before it was counted)."""
