"""GLADyS's ``gladys.v1.ExecutiveService``, served by phronesis's executive (seed 000), so a GLADyS
orchestrator calls phronesis where it called its own executive (``EXECUTIVE_ADDRESS``).

Where the two differ in meaning, phronesis's choice, documented in ``docs/gladys.md``:

- ``accepted`` is true when something was answered (a heuristic fired or the LLM answered); a
  rejected or fallback decision is ``accepted`` false with its reason in ``error_message``
  (``gladys.accept_fallback`` switches to GLADyS's meaning, the reason still said);
- the suggestion and candidates GLADyS sends carry no similarity and may have no condition text:
  each is held to heuristic memory's floor on its similarity to the event (a stored heuristic on its
  whole scope), a candidate without its condition takes the stored heuristic's, else its action,
  and when none is left (or none was sent) phronesis matches the event against its own memory.
"""

from __future__ import annotations

import logging
from typing import Any

import grpc

from phronesis.exceptions import InvalidInputError, validated
from phronesis.feedback.models import Feedback
from phronesis.gladys.status import Served, answered, named_as_sent
from phronesis.gladys.wire import executive_pb2, executive_pb2_grpc
from phronesis.logs import note_call

__all__ = ["ExecutiveServicer"]

log = logging.getLogger("phronesis.gladys")

_WIRE = {"text": "event.raw_text", "event_id": "event.id", "source": "event.source", "salience": "event.salience"}
"""phronesis's name of an event's field → GLADyS's, for the field an error names."""


class ExecutiveServicer(Served, executive_pb2_grpc.ExecutiveServiceServicer):
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
        with named_as_sent(_WIRE):  # event.raw_text, not text
            decision = await self._engine.decide_event(event.raw_text, tenant=self._tenant, **fields)
        accepted = decision.accepted or self._engine.settings.gladys.accept_fallback
        return executive_pb2.ProcessEventResponse(
            accepted=accepted,
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
        """The suggestion and candidates the caller matched, first seen first, each judged as heuristic
        memory judges a match: held to its floor and to the situation's opposite (GLADyS sends no
        similarity; its memory matched "the living room is too cold" for "too warm", and the
        suggestion would raise the thermostat). A candidate sent without its condition takes the stored
        heuristic's; one phronesis does not hold either cannot be judged and is set aside. Those set
        aside are on the decision's record with why (``candidates_set_aside``) and in the log; none
        left: phronesis's memory matches the event."""
        sent = [("suggestion", request.suggestion)] if request.HasField("suggestion") else []
        sent += [(f"candidates.{i}", candidate) for i, candidate in enumerate(request.candidates)]
        given: dict[str, dict[str, Any]] = {}
        aside: dict[str, str] = {}
        for field, s in sent:
            if not 0.0 <= s.confidence <= 1.0:  # named as the caller sent it, not as phronesis reads it
                raise InvalidInputError(f"{field}.confidence", "must be between 0 and 1")
            if not s.heuristic_id:
                aside[field] = "no heuristic_id: nothing to fire or to rate"
                continue
            if s.heuristic_id in given or s.heuristic_id in aside:
                continue
            if not s.suggested_action.strip():
                aside[s.heuristic_id] = "no suggested_action: nothing to answer with"
                continue
            given[s.heuristic_id] = {
                "heuristic_id": s.heuristic_id,
                "condition_text": s.condition_text,  # empty: the stored heuristic's (judge_given)
                "suggested_action": s.suggested_action,
                "confidence": s.confidence,
            }
        pairs = [(c["heuristic_id"], c["condition_text"]) for c in given.values()]
        judged = await self._engine.heuristics.judge_given(self._tenant, request.event.raw_text, pairs)
        for heuristic_id in given:
            if heuristic_id not in judged:
                aside[heuristic_id] = "no condition sent, and phronesis does not hold it"
                continue
            judgement, cosine, _ = judged[heuristic_id]
            if not judgement.matches:
                aside[heuristic_id] = judgement.why_set_aside(cosine)
        if aside:  # on the decision's record, and in the log
            note_call(candidates_set_aside=[{"heuristic_id": h, "why": why} for h, why in aside.items()])
            said = "; ".join(f"{heuristic_id} ({why})" for heuristic_id, why in aside.items())
            log.info("event %r: the caller's candidates set aside: %s", request.event.id, said)
        return [
            c | {"similarity": judged[h][0].similarity, "condition_text": c["condition_text"] or judged[h][2]}
            for h, c in given.items()
            if h not in aside
        ]

    @answered
    async def ProvideFeedback(
        self, request: executive_pb2.ProvideFeedbackRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> executive_pb2.ProvideFeedbackResponse:
        rating = "positive" if request.positive else "negative"
        feedback = validated(Feedback, {"response_id": request.response_id, "rating": rating})
        receipt = await self._engine.give_feedback(self._tenant, feedback)
        created = receipt.heuristic_id if receipt.effect == "created" and receipt.heuristic_id else ""
        return executive_pb2.ProvideFeedbackResponse(accepted=receipt.accepted, created_heuristic_id=created)
