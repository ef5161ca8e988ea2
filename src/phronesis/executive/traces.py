"""Reasoning traces, read back from decision records (seed 000 ``get_trace``).

GLADyS kept traces in a per-process dict for 300 s, so feedback after a restart, on
another worker, or five minutes later was lost (ORIGINS §1.8 bug 9). Here the trace
*is* the executive decision record, committed with the decision; a trace is visible
for ``retention`` after the decision and the audit purge deletes the record later.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ConfigDict

from phronesis.audit.models import DecisionRecord
from phronesis.clock import Clock
from phronesis.exceptions import NotFoundError
from phronesis.schema import Schema

if TYPE_CHECKING:
    from phronesis.audit.repository import DecisionRecordRepository

__all__ = ["DecisionRecordTraceStore", "ReasoningTrace", "TraceStore", "trace_from_record"]


class ReasoningTrace(Schema):
    """Seed 000 ``ReasoningTrace`` plus what feedback needs: path, strategy, shown candidates."""

    model_config = ConfigDict(frozen=True)

    event_id: str
    response_id: str
    context: str
    response: str
    timestamp: datetime
    event_source: str
    matched_heuristic_id: str | None
    predicted_success: float
    prediction_confidence: float
    path: str
    strategy: str | None
    tenant: str
    shown_candidate_ids: tuple[str, ...] = ()
    fired_heuristic_id: str | None = None
    """Set only when the heuristic's action is what the user saw (heuristic path)."""

    def age_seconds(self, now: datetime) -> float:
        return (now - self.timestamp).total_seconds()


def trace_from_record(record: DecisionRecord) -> ReasoningTrace:
    attributes: dict[str, Any] = record.attributes
    inputs: dict[str, Any] = record.inputs
    return ReasoningTrace(
        event_id=record.subject_id or "",
        response_id=record.id,
        context=str(inputs.get("event_text", "")),
        response=record.action or "",
        timestamp=record.created_at,
        event_source=str(inputs.get("event_source", "")),
        matched_heuristic_id=attributes.get("matched_heuristic_id"),
        predicted_success=float(attributes.get("predicted_success", record.confidence or 0.0)),
        prediction_confidence=float(attributes.get("prediction_confidence", 0.0)),
        path=record.path,
        strategy=record.strategy,
        tenant=record.tenant,
        shown_candidate_ids=tuple(attributes.get("shown_candidate_ids", ())),
        fired_heuristic_id=attributes.get("matched_heuristic_id") if record.path == "heuristic" else None,
    )


class TraceStore(Protocol):
    async def get(self, tenant: str, response_id: str) -> ReasoningTrace | None: ...


class DecisionRecordTraceStore:
    """Traces are executive decision records younger than ``retention``."""

    def __init__(self, decisions: DecisionRecordRepository, clock: Clock, retention: timedelta) -> None:
        self._decisions = decisions
        self._clock = clock
        self.retention = retention

    async def get(self, tenant: str, response_id: str) -> ReasoningTrace | None:
        try:
            record = await self._decisions.get(tenant, response_id)
        except NotFoundError:
            return None
        if record.kind != "executive":
            return None
        trace = trace_from_record(record)
        if trace.age_seconds(self._clock.now()) > self.retention.total_seconds():
            return None
        return trace
