"""The heuristic half of GLADyS's ``gladys.memory.MemoryStorage``, served by phronesis's heuristic
memory (seed 000's candidates) and its learner (seed 001), so GLADyS's orchestrator and its salience
gateway call phronesis where they called their memory service (``MEMORY_STORAGE_ADDRESS``).

Every other call of that service (episodic events, entities, relationships, responses …) answers
``UNIMPLEMENTED``, saying what phronesis serves (``unserved``): phronesis is not an episodic store,
and a caller told so plainly can keep its own for those.

Where the two differ in meaning, phronesis's choice (``docs/gladys.md``):

- ``UpdateHeuristicConfidence`` moves the confidence by phronesis's Beta evidence, weighted by the
  sent ``magnitude``; one sent without (proto3 sends 0) weighs ``gladys.unset_magnitude``. Its
  ``td_error`` is what was observed minus the sent ``predicted_success`` (0 when none was sent),
  answered for the caller's log; the update does not scale by it.
- ``UpdateFireOutcome`` records what came of a fire; it moves no confidence (the caller's learning
  signal does, through ``UpdateHeuristicConfidence``: one signal, counted once).
- A zero ``min_similarity``, ``min_confidence`` or ``limit`` means phronesis's default, as in GLADyS.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import grpc
import numpy as np

from phronesis.api.bodies import ConfidenceRequest
from phronesis.exceptions import InvalidInputError, validated
from phronesis.gladys.heuristics import create_of, message_of
from phronesis.gladys.status import Served, answered, named_as_sent, required
from phronesis.gladys.wire import memory_pb2, memory_pb2_grpc
from phronesis.heuristics.models import HeuristicMatch
from phronesis.learning.flight_recorder import FlightFire

__all__ = ["SERVED", "SERVICE", "MemoryServicer", "not_served", "unserved"]

SERVICE = "gladys.memory.MemoryStorage"
SERVED = tuple(memory_pb2.DESCRIPTOR.services_by_name["MemoryStorage"].methods_by_name)
_WIRE = {"source": "feedback_source"}


class MemoryServicer(Served, memory_pb2_grpc.MemoryStorageServicer):
    # ------------------------------------------------------------------ heuristics

    @answered
    async def StoreHeuristic(
        self, request: memory_pb2.StoreHeuristicRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> memory_pb2.StoreHeuristicResponse:
        """Store, or replace by id (its history kept), as GLADyS's memory stores or updates."""
        if not request.HasField("heuristic"):
            raise InvalidInputError("heuristic", "is required")
        item = create_of(request.heuristic)
        ids = [item.id] if item.id is not None else []
        if ids:
            await self._engine.quotas.reserve_new(self._tenant, "heuristics", *ids)
        else:
            await self._engine.quotas.reserve(self._tenant, "heuristics", 1)
        (stored,) = await self._engine.heuristics.add_many(self._tenant, [item], upsert=True)
        return memory_pb2.StoreHeuristicResponse(success=True, heuristic_id=stored.id)

    @answered
    async def GetHeuristic(
        self, request: memory_pb2.GetHeuristicRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> memory_pb2.GetHeuristicResponse:
        required(request, "id")
        heuristic = await self._engine.heuristics.get(self._tenant, request.id)
        return memory_pb2.GetHeuristicResponse(heuristic=message_of(heuristic))

    @answered
    async def QueryHeuristics(
        self, request: memory_pb2.QueryHeuristicsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> memory_pb2.QueryHeuristicsResponse:
        """Heuristics whose scope the query falls in, by its text or by a vector of the same model."""
        fields = _bounds(request.min_similarity, request.min_confidence, request.limit)
        if request.query_embedding:
            vector = self._vector(request.query_embedding, "query_embedding")
            matches = await self._engine.heuristics.match_vector(
                self._tenant, vector, text=request.query_text, **fields
            )
        elif request.query_text.strip():
            matches = await self._engine.heuristics.match(self._tenant, request.query_text, **fields)
        else:
            raise InvalidInputError("query_text", "give the query's text or its query_embedding")
        return _matches(matches)

    @answered
    async def QueryMatchingHeuristics(
        self, request: memory_pb2.QueryMatchingHeuristicsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> memory_pb2.QueryHeuristicsResponse:
        """The salience gateway's question: the heuristics that match an event, within its source
        (and those with none, which match every source), at memory's own floor."""
        if not request.event_text.strip():
            raise InvalidInputError("event_text", "is required")
        matches = await self._engine.heuristics.match(
            self._tenant,
            request.event_text,
            source=request.source_filter or None,
            include_general=True,
            **_bounds(0.0, request.min_confidence, request.limit),
        )
        return _matches(matches)

    @answered
    async def UpdateHeuristicConfidence(
        self, request: memory_pb2.UpdateHeuristicConfidenceRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> memory_pb2.UpdateHeuristicConfidenceResponse:
        required(request, "heuristic_id")
        if not 0.0 <= request.predicted_success <= 1.0:
            raise InvalidInputError("predicted_success", "must be between 0 and 1 (0: none sent)")
        magnitude = request.magnitude or self._engine.settings.gladys.unset_magnitude
        sent = {"positive": request.positive, "magnitude": magnitude, "source": request.feedback_source or "explicit"}
        with named_as_sent(_WIRE):
            body = validated(ConfidenceRequest, sent)
        update = await self._engine.heuristics.update_confidence(
            self._tenant, request.heuristic_id, positive=body.positive, magnitude=body.magnitude, source=body.source
        )
        observed = 1.0 if request.positive else 0.0
        return memory_pb2.UpdateHeuristicConfidenceResponse(
            success=True,
            old_confidence=update.old_confidence,
            new_confidence=update.new_confidence,
            delta=update.delta,
            td_error=observed - request.predicted_success if request.predicted_success else 0.0,
        )

    # ------------------------------------------------------------------ fires

    @answered
    async def RecordHeuristicFire(
        self, request: memory_pb2.RecordHeuristicFireRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> memory_pb2.RecordHeuristicFireResponse:
        required(request, "heuristic_id", "event_id")
        fire_id = await self._engine.flight_recorder.record(
            self._tenant,
            request.heuristic_id,
            event_id=request.event_id,
            episodic_event_id=request.episodic_event_id or None,
        )
        return memory_pb2.RecordHeuristicFireResponse(fire_id=fire_id)

    @answered
    async def UpdateFireOutcome(
        self, request: memory_pb2.UpdateFireOutcomeRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> memory_pb2.UpdateFireOutcomeResponse:
        required(request, "fire_id")
        await self._engine.flight_recorder.set_outcome(
            self._tenant, request.fire_id, request.outcome, source=request.feedback_source or None
        )
        return memory_pb2.UpdateFireOutcomeResponse(success=True)

    @answered
    async def GetPendingFires(
        self, request: memory_pb2.GetPendingFiresRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> memory_pb2.GetPendingFiresResponse:
        if request.max_age_seconds < 0:
            raise InvalidInputError("max_age_seconds", "must not be negative")
        fires = await self._engine.flight_recorder.pending(
            self._tenant,
            heuristic_id=request.heuristic_id or None,
            max_age_s=float(request.max_age_seconds) if request.max_age_seconds else None,
        )
        return memory_pb2.GetPendingFiresResponse(fires=[_fire(f) for f in fires])

    @answered
    async def ListFires(
        self, request: memory_pb2.ListFiresRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> memory_pb2.ListFiresResponse:
        fires, total = await self._engine.flight_recorder.page(
            self._tenant, outcome=request.outcome or None, limit=request.limit or 100, offset=request.offset
        )
        return memory_pb2.ListFiresResponse(fires=[_fire(f) for f in fires], total_count=total)

    # ------------------------------------------------------------------ embeddings

    @answered
    async def GenerateEmbedding(
        self, request: memory_pb2.GenerateEmbeddingRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> memory_pb2.GenerateEmbeddingResponse:
        """The text's vector from the sentence model heuristics are matched with, little-endian float32."""
        if not request.text.strip():
            raise InvalidInputError("text", "is required")
        limit = self._engine.settings.heuristics.max_text_chars
        if len(request.text) > limit:
            raise InvalidInputError("text", f"longer than {limit} characters")
        (vector,) = await self._engine.embedder.embed([request.text])
        return memory_pb2.GenerateEmbeddingResponse(embedding=np.asarray(vector, dtype="<f4").tobytes())

    def _vector(self, given: bytes, field: str) -> np.ndarray[Any, np.dtype[np.float32]]:
        dimension = self._engine.embedder.dimension
        if len(given) != 4 * dimension:
            raise InvalidInputError(field, f"must be {dimension} little-endian float32 values ({4 * dimension} bytes)")
        vector = np.frombuffer(given, dtype="<f4").astype(np.float32)
        norm = float(np.linalg.norm(vector))
        if not np.isfinite(norm) or norm == 0.0:
            raise InvalidInputError(field, "must be a finite, non-zero vector")
        return vector / norm


def _bounds(min_similarity: float, min_confidence: float, limit: int) -> dict[str, Any]:
    """A request's bounds, 0 meaning phronesis's default (as GLADyS reads proto3's unset)."""
    if not 0.0 <= min_similarity <= 1.0:
        raise InvalidInputError("min_similarity", "must be between 0 and 1")
    if not 0.0 <= min_confidence <= 1.0:
        raise InvalidInputError("min_confidence", "must be between 0 and 1")
    if not 0 <= limit <= 100:
        raise InvalidInputError("limit", "must be between 0 (the default) and 100")
    return {"min_similarity": min_similarity or None, "min_confidence": min_confidence, "k": limit or None}


def _matches(matches: Sequence[HeuristicMatch]) -> memory_pb2.QueryHeuristicsResponse:
    return memory_pb2.QueryHeuristicsResponse(
        matches=[
            memory_pb2.HeuristicMatch(
                heuristic=message_of(m.heuristic), similarity=min(1.0, max(-1.0, m.similarity)), score=m.score
            )
            for m in matches
        ]
    )


def _fire(listed: FlightFire) -> memory_pb2.HeuristicFire:
    fire = listed.fire
    return memory_pb2.HeuristicFire(
        id=fire.id,
        heuristic_id=fire.heuristic_id,
        event_id=fire.event_id,
        fired_at_ms=int(fire.fired_at.timestamp() * 1000),
        outcome=listed.outcome,
        feedback_source=listed.said_by or "",
        episodic_event_id=fire.episodic_event_id or "",
        heuristic_name=listed.heuristic_name or "",
        condition_text=listed.condition_text,
        confidence=listed.confidence,
    )


def unserved(method: str) -> str:
    """What a call of GLADyS's memory service that phronesis does not serve is told."""
    return f"{not_served(SERVICE, method, SERVED)}; keep GLADyS's own memory service for the rest"


def not_served(service: str, method: str, served: tuple[str, ...]) -> str:
    """What a call of a GLADyS service that phronesis does not serve is told: what it serves of it."""
    calls = f"the heuristic calls ({', '.join(served)})" if service == SERVICE else ", ".join(served)
    return f"phronesis does not serve {service}/{method}: it serves {calls}"
