"""The request and response bodies the API defines for itself (pages, batches, small requests),
apart from the routers (which need the engine for their dependencies)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from phronesis.admission.models import AdmissionResult, MemoryDecision, Run, RunIn, SearchHit
from phronesis.audit.models import DecisionRecord
from phronesis.executive.report import StrategyReport
from phronesis.heuristics.models import Heuristic, HeuristicMatch
from phronesis.learning.models import HistoryEntry
from phronesis.pages import Page
from phronesis.proactive.models import ID_PATTERN, DeferredInsight, ProactiveFeedback, Signal, SignalIn, UserProfile
from phronesis.routing.document_jobs import DocumentJob
from phronesis.routing.documents import Document, DocumentIn
from phronesis.routing.tools import Tool
from phronesis.schema import Schema
from phronesis.tenant_settings import AppliedSetting

__all__ = [
    "BatchResult",
    "DocumentBatch",
    "DocumentJobPage",
    "DocumentPage",
    "DocumentsStored",
    "ExecutiveReport",
    "FeedbackPage",
    "HistoryPage",
    "InsightPage",
    "RunHits",
    "SignalPage",
    "ToolPage",
    "UserPage",
    "ConfidenceRequest",
    "CycleRequest",
    "DecisionPage",
    "HeuristicPage",
    "ImportResult",
    "MatchRequest",
    "MatchResponse",
    "MemoryDecisionPage",
    "RunBatch",
    "RunPage",
    "SettingPage",
    "SignalBatch",
    "SignalsStored",
]


HeuristicPage = Page[Heuristic]
HistoryPage = Page[HistoryEntry]
UserPage = Page[UserProfile]
SignalPage = Page[Signal]
InsightPage = Page[DeferredInsight]
FeedbackPage = Page[ProactiveFeedback]
ToolPage = Page[Tool]
DocumentPage = Page[Document]
DocumentJobPage = Page[DocumentJob]


class MatchRequest(Schema):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=4000)
    """The situation to match against the heuristics' conditions."""
    source: str | None = Field(default=None, max_length=128)
    """Only heuristics of this domain, the event source they apply to (with ``include_general``,
    also those with no domain); unset: every domain."""
    k: int | None = Field(default=None, ge=1, le=100)
    """How many matches at most (1–100); unset: the configured ``PHRONESIS_HEURISTICS__TOP_K``."""
    min_similarity: float | None = Field(default=None, ge=-1.0, le=1.0, allow_inf_nan=False)
    """Leave out matches whose cosine similarity to ``text`` is below this (-1 to 1); unset: the
    configured similarity threshold."""
    min_confidence: float = Field(default=0.0, ge=0.0, le=1.0, allow_inf_nan=False)
    """Leave out heuristics whose confidence is below this (0 to 1)."""
    include_general: bool = Field(default=False, strict=True)
    """With ``source``: also the heuristics that have no domain, which apply to every source.
    ``true`` lists what a decision on an event from ``source`` considers."""


class MatchResponse(Schema):
    matches: list[HeuristicMatch]
    """Most similar first, each with its similarity to the text and its confidence."""


class ConfidenceRequest(Schema):
    model_config = ConfigDict(extra="forbid")

    positive: bool = Field(strict=True)
    """True: evidence the heuristic's action was right; false: that it was wrong."""
    magnitude: float | None = Field(default=None, gt=0.0, le=10.0, allow_inf_nan=False)
    """Evidence weight, above 0 and at most 10; unset means 1.0. 0 is refused, never read as 1.0."""
    source: str = Field(default="api", min_length=1, max_length=64, pattern=r"^[a-z0-9_.:-]+$")
    """Where the evidence came from (e.g. ``user_explicit``, ``dev``), kept in the heuristic's history."""


class ImportResult(Schema):
    imported: int
    """How many heuristics the import created or replaced."""
    ids: list[str]
    """Their ids, in the order of the lines imported."""


class RunBatch(Schema):
    model_config = ConfigDict(extra="forbid")

    runs: list[RunIn] = Field(min_length=1, max_length=100_000)
    """The finished runs to admit, in order: a later run can replace or merge with an earlier one."""


class BatchResult(Schema):
    batch_id: str | None
    """Every decision of the batch carries it (``GET /v1/memory-decisions?batch_id=``)."""
    results: list[AdmissionResult]
    """One result per run, in the order given."""
    counts: dict[str, int]
    """How many runs got each decision."""


RunPage = Page[Run]


MemoryDecisionPage = Page[MemoryDecision]


DecisionPage = Page[DecisionRecord]


class SignalBatch(Schema):
    model_config = ConfigDict(extra="forbid")

    signals: list[SignalIn] = Field(min_length=1, max_length=1000)
    """The signals to store for the user's next cycles (1–1000)."""


class SignalsStored(Schema):
    stored: list[Signal]
    """The signals stored, as the server keeps them (with ids and expiry)."""
    duplicates: int
    """Signals whose dedup key this user already had (or that the batch named again): not stored again."""
    updated: int = 0
    """Of the duplicates, those that matched a pending signal: it took their urgency, data and expiry (a
    source polled again). The rest were refused: their key belongs to a used signal, for 7 days by default."""


class CycleRequest(Schema):
    model_config = ConfigDict(extra="forbid")

    user_id: str | None = Field(default=None, min_length=1, max_length=64, pattern=ID_PATTERN)
    """One user's cycle now; None: every due user of the tenant (one scheduler tick)."""


SettingPage = Page[AppliedSetting]


class RunHits(Schema):
    hits: list[SearchHit]
    """Most similar first (at most ``k``), each with its run's task, outcome and summary."""


class ExecutiveReport(Schema):
    strategies: list[StrategyReport]
    """One report per strategy that decided events in the window, by strategy name."""


class DocumentBatch(Schema):
    model_config = ConfigDict(extra="forbid")

    documents: list[DocumentIn] = Field(min_length=1, max_length=10_000)
    """The documents to add; each is split into passages and embedded before the answer (a job:
    in the background, the job polled for progress)."""


class DocumentsStored(Schema):
    stored: list[Document]
    """The documents as stored, in the order given, with their ids and passage counts."""
