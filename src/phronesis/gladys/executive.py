"""GLADyS's ``gladys.v1.ExecutiveService``, served by phronesis's executive (seed 000), so a GLADyS
orchestrator calls phronesis where it called its own executive (``EXECUTIVE_ADDRESS``).

Where the two differ in meaning, phronesis's choice, documented in ``docs/gladys.md``:

- ``accepted`` is true when something was answered (a heuristic fired or the LLM answered), as
  GLADyS's executive says; a rejected or fallback decision is ``accepted`` false with its reason in
  ``error_message``;
- the suggestion and candidates GLADyS sends carry no similarity and may have no condition text:
  phronesis matches the event against its own heuristic memory when none are sent, and a sent
  candidate without its condition takes the stored heuristic's, else its action.
"""

from __future__ import annotations

import time
from typing import Any

import grpc

from phronesis.api.readiness import Readiness
from phronesis.engine import Engine
from phronesis.exceptions import NotFoundError, validated
from phronesis.feedback.models import Feedback
from phronesis.gladys.status import answered
from phronesis.gladys.wire import executive_pb2, executive_pb2_grpc, types_pb2

__all__ = ["ExecutiveServicer"]

TRACE_HEADER = "x-gladys-trace-id"


def trace_id(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    """The caller's trace id (GLADyS sends it as metadata ``x-gladys-trace-id``)."""
    for key, value in context.invocation_metadata() or ():
        if key == TRACE_HEADER and isinstance(value, str) and value:
            return value
    return None


class ExecutiveServicer(executive_pb2_grpc.ExecutiveServiceServicer):
    def __init__(self, engine: Engine, tenant: str) -> None:
        self._engine = engine
        self._tenant = tenant
        self._started = time.monotonic()
        self._readiness = Readiness(engine)

    @answered
    async def ProcessEvent(
        self, request: executive_pb2.ProcessEventRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> executive_pb2.ProcessEventResponse:
        event = request.event
        given = event.salience
        salience = {"threat": given.threat, **dict(given.vector)} if event.HasField("salience") else {}
        fields: dict[str, Any] = {"source": event.source, "salience": salience, "immediate": request.immediate}
        if event.id:
            fields["event_id"] = event.id
        candidates = await self._candidates(request)
        if candidates:
            fields["candidates"] = candidates
        decision = await self._engine.decide_event(event.raw_text, tenant=self._tenant, **fields)
        return executive_pb2.ProcessEventResponse(
            accepted=decision.accepted,
            error_message=decision.error or ("" if decision.accepted else (decision.reason or "")),
            response_id=decision.response_id,
            response_text=decision.response_text,
            predicted_success=decision.predicted_success,
            prediction_confidence=decision.prediction_confidence,
            prompt_text=decision.prompt_text,
            decision_path=decision.decision_path,
            matched_heuristic_id=decision.matched_heuristic_id or "",
        )

    async def _candidates(self, request: executive_pb2.ProcessEventRequest) -> list[dict[str, Any]]:
        """The suggestion and candidates the caller matched, first seen first; a candidate without its
        condition takes the stored heuristic's (GLADyS may send none), else its action."""
        sent = ([request.suggestion] if request.HasField("suggestion") else []) + list(request.candidates)
        out: dict[str, dict[str, Any]] = {}
        for s in sent:
            if not s.heuristic_id or s.heuristic_id in out:
                continue
            condition = s.condition_text
            if not condition:
                try:
                    condition = (await self._engine.heuristics.get(self._tenant, s.heuristic_id)).condition_text
                except NotFoundError:
                    condition = s.suggested_action
            out[s.heuristic_id] = {
                "heuristic_id": s.heuristic_id,
                "condition_text": condition,
                "suggested_action": s.suggested_action,
                "confidence": s.confidence,
            }
        return list(out.values())

    @answered
    async def ProvideFeedback(
        self, request: executive_pb2.ProvideFeedbackRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> executive_pb2.ProvideFeedbackResponse:
        rating = "positive" if request.positive else "negative"
        feedback = validated(Feedback, {"response_id": request.response_id, "rating": rating})
        receipt = await self._engine.give_feedback(self._tenant, feedback)
        created = receipt.heuristic_id if receipt.effect == "created" and receipt.heuristic_id else ""
        return executive_pb2.ProvideFeedbackResponse(accepted=receipt.accepted, created_heuristic_id=created)

    @answered
    async def GetHealth(
        self, request: types_pb2.GetHealthRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> types_pb2.GetHealthResponse:
        """The readiness check (database, sentence model; the LLM where one is required)."""
        report = await self._readiness.report()
        down = [
            f"{name}: {part.detail or part.state}"
            for name, part in report.parts.items()
            if part.state == "unavailable" and part.required
        ]
        return types_pb2.GetHealthResponse(status=_status(report.status), message="; ".join(down))

    @answered
    async def GetHealthDetails(
        self, request: types_pb2.GetHealthDetailsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> types_pb2.GetHealthDetailsResponse:
        """The readiness check, part by part, with the uptime and what this server serves."""
        report = await self._readiness.report()
        parts = report.parts.items()
        details = {name: part.state + (f": {part.detail}" if part.detail else "") for name, part in parts}
        return types_pb2.GetHealthDetailsResponse(
            status=_status(report.status),
            uptime_seconds=int(time.monotonic() - self._started),
            details=details | {"tenant": self._tenant, "index_backend": self._engine.index_backend},
        )


def _status(status: str) -> types_pb2.HealthStatus.ValueType:
    return types_pb2.HEALTH_STATUS_HEALTHY if status == "ready" else types_pb2.HEALTH_STATUS_UNHEALTHY
