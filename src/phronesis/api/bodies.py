"""The request and response bodies the API defines for itself (pages, batches, small requests),
apart from the routers: the client (``phronesis.client``) reads them without importing the
server (its routers need the engine for their dependencies)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from phronesis.admission.models import AdmissionResult, MemoryDecision, Run, RunIn
from phronesis.audit.models import DecisionRecord
from phronesis.heuristics.models import Heuristic, HeuristicMatch
from phronesis.proactive.models import ID_PATTERN, Signal, SignalIn
from phronesis.schema import Schema
from phronesis.tenant_settings import AppliedSetting

__all__ = [
    "BatchResult",
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
    "SettingList",
    "SignalBatch",
    "SignalsStored",
]


class HeuristicPage(Schema):
    items: list[Heuristic]
    limit: int
    offset: int


class MatchRequest(Schema):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=4000)
    source: str | None = Field(default=None, max_length=128)
    """Hard filter on the heuristic's domain (seed 000, F-01)."""
    k: int | None = Field(default=None, ge=1, le=100)
    min_similarity: float | None = Field(default=None, ge=-1.0, le=1.0, allow_inf_nan=False)
    min_confidence: float = Field(default=0.0, ge=0.0, le=1.0, allow_inf_nan=False)


class MatchResponse(Schema):
    matches: list[HeuristicMatch]


class ConfidenceRequest(Schema):
    model_config = ConfigDict(extra="forbid")

    positive: bool
    magnitude: float | None = Field(default=None, gt=0.0, le=10.0, allow_inf_nan=False)
    """Evidence weight in (0, 10]; unset means 1.0 (seed 001). 0 is refused, never read as 1.0."""
    source: str = Field(default="api", min_length=1, max_length=64, pattern=r"^[a-z0-9_.:-]+$")


class ImportResult(Schema):
    imported: int
    ids: list[str]


class RunBatch(Schema):
    model_config = ConfigDict(extra="forbid")

    runs: list[RunIn] = Field(min_length=1, max_length=100_000)


class BatchResult(Schema):
    batch_id: str | None
    """Every decision of the batch carries it (``GET /v1/memory-decisions?batch_id=``)."""
    results: list[AdmissionResult]
    counts: dict[str, int]
    """How many runs got each decision."""


class RunPage(Schema):
    items: list[Run]
    limit: int
    offset: int


class MemoryDecisionPage(Schema):
    items: list[MemoryDecision]
    limit: int
    offset: int


class DecisionPage(Schema):
    items: list[DecisionRecord]
    limit: int
    offset: int


class SignalBatch(Schema):
    model_config = ConfigDict(extra="forbid")

    signals: list[SignalIn] = Field(min_length=1, max_length=1000)


class SignalsStored(Schema):
    stored: list[Signal]
    duplicates: int
    """Signals whose dedup key this user already had: not stored again."""


class CycleRequest(Schema):
    model_config = ConfigDict(extra="forbid")

    user_id: str | None = Field(default=None, min_length=1, max_length=64, pattern=ID_PATTERN)
    """One user's cycle now; None: every due user of the tenant (one scheduler tick)."""


class SettingList(Schema):
    items: list[AppliedSetting]
