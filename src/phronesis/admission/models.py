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
    """The agent that made the run (default "default"). Runs are compared only with runs of the same agent and user."""
    user_id: str = Field(default="", max_length=64, pattern=SCOPE_PATTERN)
    """Scope: runs are compared with, replace and merge with runs of the same agent and user only."""
    task: str = Field(min_length=1, max_length=4000)
    """What the run was asked to do, 1 to 4000 characters, trimmed. Unless task_id is given, the task text with case and
    spacing ignored is the task's identity."""
    task_id: str | None = Field(default=None, min_length=1, max_length=64, pattern=ID_PATTERN)
    """The task's identity. None: derived from the normalised task text. REPLACE needs the same task."""
    outcome: Outcome
    """How the run ended: success, partial or failure. A better outcome (success > partial > failure) for the same task
    can replace a stored run."""
    summary: str | None = Field(default=None, min_length=1, max_length=8000)
    """The caller's own summary, used as is. None: summarised from the steps (LLM or extractive)."""
    steps: list[Step] = Field(default_factory=list, max_length=500)
    """The run's trace, flattened: tool calls, observations, messages."""
    error: str | None = Field(default=None, max_length=4000)
    """The error the run ended with, if any. It goes into the summary and into what makes two runs the same run."""
    references: list[Value] = Field(default_factory=list, max_length=200)
    """What the run consulted (documents, URLs, APIs)."""
    artifacts: list[Value] = Field(default_factory=list, max_length=200)
    """What the run produced (files, records, messages)."""
    usage_count: int = Field(default=1, ge=0, le=1_000_000_000)
    """How many times the run has been used so far, as the caller counts it (default 1). Stored as is; search sums it
    over a merge group."""
    replaces: str | None = Field(default=None, min_length=1, max_length=64, pattern=ID_PATTERN)
    """Explicit REPLACE: the caller knows this run supersedes that one (same task and scope, still active)."""
    attributes: JsonObject = Field(default_factory=dict, max_length=64)
    """Free-form JSON kept with the run and returned as is (at most 64 keys, finite numbers only). Admission does not
    read it, and it is not part of what makes two runs the same run."""

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
    """A stored run the decision was compared with."""

    run_id: str
    """The stored run's id (or a run admitted earlier in the same batch)."""
    similarity: float
    """Cosine similarity of its summary's embedding to the new run's, rounded to 4 decimals."""
    outcome: Outcome
    """How that run ended: success, partial or failure."""
    same_task: bool
    """Whether it has the same task id as the new run."""
    summary: str
    """Its summary, cut to the first 300 characters."""
    references: int | None
    """How many references it has; None for a run below the low threshold, whose references were not read."""
    artifacts: int | None
    """How many artifacts it has; None for a run below the low threshold, whose artifacts were not read."""
    duplicate: bool | None = None
    """The tenant's pair judge's verdict, "does it say what the new run says" (``admission
    calibrate``); None where no judge is fitted (the duplicate threshold decided) or the run was
    below the low similarity (no judge saw it)."""


class Run(Schema):
    model_config = ConfigDict(frozen=True)

    id: str
    """The run's id: the caller's, or a generated one."""
    agent_id: str
    """The agent that made the run; with user_id, the scope it is compared in."""
    user_id: str
    """The user the run was for; "" for none. With agent_id, the scope it is compared in."""
    task_id: str
    """The task's identity: the caller's task_id, or one derived from the task text (case and spacing ignored)."""
    task: str
    """The task text as sent (trimmed)."""
    summary: str
    """The text that was embedded and compared with other runs: the caller's summary, or one written from the steps."""
    summary_source: str
    """Who wrote the summary: caller, llm, or extractive (picked from the run's own steps, no model)."""
    outcome: Outcome
    """How the run ended: success, partial or failure."""
    status: Literal["active", "superseded"]
    """active: found by search and compared with new runs. superseded: replaced by a better run (REPLACE), kept for the
    record but never searched."""
    superseded_by: str | None
    """The run that replaced it; None while it is active."""
    superseded_at: datetime | None
    """When it was replaced (UTC); None while it is active."""
    merge_group: str | None
    """The id of the merge group it belongs to (the id of the run the group started with); None for a run in no
    group."""
    canonical: bool
    """True for the run its merge group shows first (best outcome, newest on a tie) and for an active run in no group;
    false for the group's other runs and for a superseded run."""
    usage_count: int
    """The use count the caller sent with the run. Later repeats of it are counted apart, in duplicate_count."""
    duplicate_count: int
    """How many later runs were decided NOT as repeats of it: each counts one more use (an undone NOT counts one
    less)."""
    references: list[str]
    """What the run consulted (documents, URLs, APIs), as sent, without repeats."""
    artifacts: list[str]
    """What the run produced (files, records, messages), as sent, without repeats."""
    attributes: dict[str, Any]
    """The caller's free-form JSON, as sent."""
    created_at: datetime
    """When the run was admitted (UTC)."""
    updated_at: datetime
    """When the run last changed (UTC), for example superseded, merged, or counted as used again."""


class MemoryDecision(Schema):
    """A memory admission decision: one for every run admitted, whether it was stored or not."""

    model_config = ConfigDict(frozen=True)

    id: str
    """The decision's id: to undo it or rate it (/v1/memory-decisions/{id}/undo, /feedback); also its decision record's
    id (GET /v1/decisions/{id})."""
    run_id: str
    """The admitted run's id. After NOT no run was stored for it (a re-sent run is stored already, from before)."""
    agent_id: str
    """The agent of the admitted run."""
    user_id: str
    """The user of the admitted run; "" for none."""
    decision: AdmissionDecision
    """ADD (stored as a new run), NOT (not stored), REPLACE (stored, and the target run superseded) or MERGE (stored, in
    one merge group with the target run)."""
    target_run_id: str | None
    """The stored run the decision is about: the one REPLACE superseded, MERGE joined or NOT found repeated. None for
    ADD, and for a NOT that named no run (the fail-safe, or an LLM judge that gave none)."""
    reason: str
    """Why, in words: the rule's explanation or the LLM judge's."""
    similarity: float | None
    """The most similar run's cosine similarity to the admitted run; 1.0 for an exact repeat of a stored run; None when
    there was nothing to compare with."""
    stage: AdmissionStage
    """Which stage decided: prefilter (a cheap rule before any judge), judge, explicit (the caller's replaces) or
    fail_safe (the LLM judge's answer was unusable)."""
    rule: str | None
    """The rule that decided: a pre-filter or rule-judge rule, or why the fail-safe was taken. None when the LLM judge
    decided (repaired_output when its cut-off answer was closed and kept)."""
    similar_runs: list[SimilarRun]
    """The stored runs the admitted run was compared with, most similar first (empty when there were none, or the run
    repeats a stored one exactly)."""
    batch_id: str | None
    """The batch it was admitted in; None for a run admitted alone."""
    created_at: datetime
    """When it was decided (UTC)."""
    undone_at: datetime | None = None
    """When ``POST /v1/memory-decisions/{id}/undo`` took it back (None: it stands)."""
    undone_by: str | None = None
    """The undo's own decision record."""


class UndoResult(Schema):
    """An admission decision taken back: memory as it was before it."""

    undo_id: str
    """The undo's decision record (``GET /v1/decisions/{id}``)."""
    decision_id: str
    """The memory decision that was taken back."""
    decision: AdmissionDecision
    """What that decision had decided: ADD, NOT, REPLACE or MERGE."""
    deleted_run_id: str | None
    """The run the decision had added (ADD, REPLACE, MERGE), now deleted."""
    restored: list[str]
    """Runs put back as they were (a replaced run active again, a group's canonical run again)."""
    uncounted_use: str | None
    """The run a NOT had counted one more use of, counted one less."""


class AdmissionResult(Schema):
    decision_id: str
    """The decision's id: to undo or rate it (/v1/memory-decisions/{id}/undo, /feedback); also its decision record's
    id (GET /v1/decisions/{id})."""
    run_id: str
    """The admitted run's id: the caller's, or a generated one. After NOT no run was stored for it (a re-sent run is
    stored already, from before)."""
    decision: AdmissionDecision
    """ADD (stored as a new run), NOT (not stored), REPLACE (stored, and the target run superseded) or MERGE (stored, in
    one merge group with the target run)."""
    target_run_id: str | None
    """The stored run the decision is about: the one REPLACE superseded, MERGE joined or NOT found repeated. None for
    ADD, and for a NOT that named no run (the fail-safe, or an LLM judge that gave none)."""
    reason: str
    """Why, in words: the rule's explanation or the LLM judge's."""
    similarity: float | None
    """The best similar run's similarity (None when the scope had no runs)."""
    stage: AdmissionStage
    """Which stage decided: prefilter (a cheap rule before any judge), judge, explicit (the caller's replaces) or
    fail_safe (the LLM judge's answer was unusable)."""
    rule: str | None
    """The rule that decided: a stage-1 rule, a rule-judge rule, or why the fail-safe was taken."""
    judge: Literal["llm", "rules"] | None
    """The judge that decided: llm or rules. None when no judge was needed (a pre-filter rule, or the caller's
    replaces). Under the fail-safe: rules when the rule judge stood in, else llm."""
    stored: bool
    """False for NOT: the run was not added to memory."""
    summary: str
    """The run's summary, the text that was embedded and compared."""
    summary_source: Literal["caller", "llm", "extractive", "stored"]
    """Who wrote the summary: caller, llm, extractive (picked from the run's steps, no model), or stored (the run
    repeats a stored run exactly and took its summary)."""
    similar_runs: list[SimilarRun]
    """The stored runs the new run was compared with, most similar first (empty when there were none, or the run repeats
    a stored one exactly)."""
    run: Run | None
    """The run as stored; None for NOT."""
    batch_id: str | None = None
    """The batch it was admitted in (``GET /v1/memory-decisions?batch_id=``); None alone."""


class GroupView(Schema):
    """A merge group as retrieval sees it: aggregated usage and the union of its references."""

    id: str
    """The merge group's id (the id of the run the group started with)."""
    canonical_run_id: str | None
    """The group's canonical run: the best outcome, newest on a tie. None if no active member is marked canonical."""
    size: int
    """How many active runs are in the group."""
    usage_count: int
    """The group's uses: the usage_count and duplicate_count of its active runs, added up."""
    references: list[str]
    """Every reference of the group's active runs, without repeats, sorted."""


class SearchHit(Schema):
    run: Run
    """The run found."""
    similarity: float
    """Cosine similarity of the query's embedding to the run summary's, -1 to 1."""
    best_similarity: float
    """The best similarity among the runs of this hit's merge group (its own for a run in no group):
    with ``collapse`` a group's canonical run stands at its group's place, ordered by this."""
    group: GroupView | None
    """The run's merge group with its totals; None for a run in no group."""
