"""What callers send to admission and what they get back (the API's and the engine's boundary)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints, field_validator

from phronesis.json_values import JsonObject
from phronesis.schema import Schema

__all__ = [
    "ID_PATTERN",
    "AdmissionDecision",
    "AdmissionResult",
    "AdmissionStage",
    "GroupView",
    "MemoryDecision",
    "Outcome",
    "Run",
    "RunIn",
    "SearchHit",
    "SimilarRun",
    "UndoResult",
]

ID_PATTERN = r"^[A-Za-z0-9._:@-]+$"
SCOPE_PATTERN = r"^[A-Za-z0-9._:@-]*$"

Outcome = Literal["success", "failure", "partial"]
AdmissionDecision = Literal["ADD", "NOT", "REPLACE", "MERGE"]
AdmissionStage = Literal["prefilter", "judge", "explicit", "fail_safe"]
"""Which stage decided: a stage-1 rule, the judge (LLM or rules), the caller's ``replaces``, or the fail-safe."""

OUTCOME_RANK: dict[str, int] = {"failure": 0, "partial": 1, "success": 2}
"""Seed 003's canonical order, success > failure; a partial success sits between them."""

Value = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=512)]
Step = Annotated[str, StringConstraints(max_length=4000)]


class RunIn(Schema):
    """A finished agent run, as the agent reports it."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, min_length=1, max_length=64, pattern=ID_PATTERN)
    """The run's id; re-sending a stored run with the same id and content is an idempotent NOT."""
    agent_id: str = Field(default="default", min_length=1, max_length=64, pattern=ID_PATTERN)
    user_id: str = Field(default="", max_length=64, pattern=SCOPE_PATTERN)
    """Scope: runs are compared with, replace and merge with runs of the same agent and user only."""
    task: str = Field(min_length=1, max_length=4000)
    task_id: str | None = Field(default=None, min_length=1, max_length=64, pattern=ID_PATTERN)
    """The task's identity. None: derived from the normalised task text. REPLACE needs the same task."""
    outcome: Outcome
    summary: str | None = Field(default=None, min_length=1, max_length=8000)
    """The caller's own summary, used as is. None: summarised from the steps (LLM or extractive)."""
    steps: list[Step] = Field(default_factory=list, max_length=500)
    """The run's trace, flattened: tool calls, observations, messages."""
    error: str | None = Field(default=None, max_length=4000)
    references: list[Value] = Field(default_factory=list, max_length=200)
    """What the run consulted (documents, URLs, APIs)."""
    artifacts: list[Value] = Field(default_factory=list, max_length=200)
    """What the run produced (files, records, messages)."""
    usage_count: int = Field(default=1, ge=0, le=1_000_000_000)
    replaces: str | None = Field(default=None, min_length=1, max_length=64, pattern=ID_PATTERN)
    """Explicit REPLACE: the caller knows this run supersedes that one (same task and scope, still active)."""
    attributes: JsonObject = Field(default_factory=dict, max_length=64)

    @field_validator("task")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()

    @field_validator("references", "artifacts")
    @classmethod
    def _unique(cls, values: list[str]) -> list[str]:
        return list(dict.fromkeys(values))


class SimilarRun(Schema):
    """A stored run the decision was compared with (seed ``SimilarRun``)."""

    run_id: str
    similarity: float
    outcome: Outcome
    same_task: bool
    summary: str
    references: int | None
    """How many references it has; None for a run below the low threshold, whose references were not read."""
    artifacts: int | None
    duplicate: bool | None = None
    """The tenant's pair judge's verdict, "does it say what the new run says" (``admission
    calibrate``); None where no judge is fitted (the duplicate threshold decided) or the run was
    below the low similarity (no judge saw it)."""


class Run(Schema):
    model_config = ConfigDict(frozen=True)

    id: str
    agent_id: str
    user_id: str
    task_id: str
    task: str
    summary: str
    summary_source: str
    outcome: Outcome
    status: Literal["active", "superseded"]
    superseded_by: str | None
    superseded_at: datetime | None
    merge_group: str | None
    canonical: bool
    usage_count: int
    duplicate_count: int
    references: list[str]
    artifacts: list[str]
    attributes: dict[str, Any]
    created_at: datetime
    updated_at: datetime


class MemoryDecision(Schema):
    """Seed 003's ``MemoryDecision``: one for every admission, stored or not."""

    model_config = ConfigDict(frozen=True)

    id: str
    run_id: str
    agent_id: str
    user_id: str
    decision: AdmissionDecision
    target_run_id: str | None
    reason: str
    similarity: float | None
    stage: AdmissionStage
    rule: str | None
    similar_runs: list[SimilarRun]
    batch_id: str | None
    created_at: datetime
    undone_at: datetime | None = None
    """When ``POST /v1/memory-decisions/{id}/undo`` took it back (None: it stands)."""
    undone_by: str | None = None
    """The undo's own decision record."""


class UndoResult(Schema):
    """An admission decision taken back: memory as it was before it."""

    undo_id: str
    """The undo's decision record (``GET /v1/decisions/{id}``)."""
    decision_id: str
    decision: AdmissionDecision
    deleted_run_id: str | None
    """The run the decision had added (ADD, REPLACE, MERGE), now deleted."""
    restored: list[str]
    """Runs put back as they were (a replaced run active again, a group's canonical run again)."""
    uncounted_use: str | None
    """The run a NOT had counted one more use of, counted one less."""


class AdmissionResult(Schema):
    decision_id: str
    run_id: str
    decision: AdmissionDecision
    target_run_id: str | None
    reason: str
    similarity: float | None
    """The best similar run's similarity (None when the scope had no runs)."""
    stage: AdmissionStage
    rule: str | None
    """The rule that decided: a stage-1 rule, a rule-judge rule, or why the fail-safe was taken."""
    judge: Literal["llm", "rules"] | None
    stored: bool
    """False for NOT: the run was not added to memory."""
    summary: str
    summary_source: Literal["caller", "llm", "extractive", "stored"]
    similar_runs: list[SimilarRun]
    run: Run | None
    batch_id: str | None = None
    """The batch it was admitted in (``GET /v1/memory-decisions?batch_id=``); None alone."""


class GroupView(Schema):
    """A merge group as retrieval sees it: aggregated usage and the union of its references."""

    id: str
    canonical_run_id: str | None
    size: int
    usage_count: int
    references: list[str]


class SearchHit(Schema):
    run: Run
    similarity: float
    group: GroupView | None
