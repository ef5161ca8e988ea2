"""Explicit feedback on an executive decision (seed 000 ``ProvideFeedback``, fixed).

- Heuristic path: the heuristic the user saw moves, by the score's magnitude, with the
  rater as source (``user_explicit`` / ``dev``); its outcome counters move too.
- LLM path, positive: learn a heuristic from the answer (pattern_learning); negative:
  recorded only — no heuristic was shown to the user, so none is penalised (GLADyS
  penalised the unseen "matched" heuristic).
- Last click wins on every path. On the heuristic path learning's explicit channel
  replaces the fire's earlier rating, in confidence and in the outcome counters. On the LLM
  path a decision teaches at most one lesson, as its latest rating says: a second positive
  teaches nothing more (``already_learned``); a negative or neutral after a positive takes the
  lesson back (``withdrawn``): a heuristic it created is deleted if it was never used since
  (else kept: it learns from its own outcomes now), a reinforcement is retracted exactly.
- Rejected / fallback, or a neutral score: recorded only.

Feedback comes with an idempotency key (default: one explicit feedback per response);
a key already used is refused with 409 before anything is computed. The ledger row,
the confidence change, a learned heuristic and the decision's outcome commit together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.embeddings.types import Vectors
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.executive.learning_hooks import NOT_A_FIRE, NotAFire
from phronesis.executive.pattern_learning import ExtractedPattern, PatternGate, extract_pattern
from phronesis.executive.service import ExecutiveService
from phronesis.executive.traces import ReasoningTrace
from phronesis.feedback.models import Feedback, FeedbackReceipt
from phronesis.feedback.rates import refuse_another
from phronesis.feedback.repository import FeedbackRepository, Lesson
from phronesis.feedback.scores import ScoreMapping
from phronesis.heuristics.evidence_writer import EvidenceItem
from phronesis.heuristics.models import ConfidenceUpdate, HeuristicCreate

__all__ = ["ExecutiveFeedback"]

Signal = Literal["positive", "negative", "neutral"]


@dataclass(slots=True)
class _Plan:
    """What the feedback will do, computed (LLM and embedding calls) before the transaction."""

    effect: str
    heuristic_id: str | None = None
    create: HeuristicCreate | None = None
    vectors: Vectors | None = None
    """The new heuristic's condition embedding, computed before the transaction."""
    detail: str | None = None
    withdraw: Lesson | None = None
    """The standing lesson a negative or neutral rating takes back."""


class ExecutiveFeedback:
    def __init__(self, service: ExecutiveService, ledger: FeedbackRepository, scores: ScoreMapping) -> None:
        self._service = service
        self._ledger = ledger
        self._scores = scores
        self._gate = PatternGate(service.settings.pattern_min_words, service.settings.pattern_max_words)

    async def rate(self, tenant: str, decision_id: str, rating: Feedback) -> FeedbackReceipt:
        """``feedback.rates.Rates``: ``rating`` of the executive decision ``decision_id`` (its
        ``response_id``)."""
        refuse_another(rating.response_id, decision_id, field="response_id")
        feedback = rating
        trace = await self._service.get_trace(tenant, feedback.response_id)
        if trace is None:
            raise NotFoundError("decision", feedback.response_id)
        if trace.path == "rejected":
            # a decision that did nothing: a rating would be "recorded" and counted in calibration
            raise InvalidInputError(
                "response_id",
                f"decision {feedback.response_id!r} was rejected: nothing was done for that event, so there is nothing "
                "to rate (rate a decision that answered or fired)",
            )
        feedback = await self._ledger.resolve(tenant, feedback)
        signed = self._scores.signed_magnitude(feedback)
        signal: Signal = "neutral" if signed == 0 else ("positive" if signed > 0 else "negative")
        magnitude = abs(signed)
        parts = self._service.parts
        lesson = await self._lesson(tenant, trace, connection=None)
        plan = await self._plan(tenant, trace, signal, lesson)  # LLM and embedding calls: outside the transaction
        receipt: dict[str, Any] = {}
        async with parts.database.transaction() as conn:
            standing = await self._lesson(tenant, trace, connection=conn)
            if standing != lesson:
                # another rating of this decision committed meanwhile: plan again on what stands now,
                # without learning anew (a decision teaches once)
                plan = await self._plan(tenant, trace, signal, standing, learn=False)
            effect = plan.effect
            if plan.effect in ("updated", "reinforced") and plan.heuristic_id is not None:
                receipt, effect = await self._move(conn, tenant, plan, feedback, signed)
            elif plan.create is not None:
                created = await parts.heuristics.add_many(tenant, [plan.create], connection=conn, vectors=plan.vectors)
                receipt = {"heuristic_id": created[0].id, "new_confidence": created[0].confidence}
            elif plan.withdraw is not None:
                receipt, plan.detail = await self._withdraw(conn, tenant, plan.withdraw, feedback)
            await self._ledger.add(
                tenant,
                feedback,
                magnitude=signed,
                effect=effect,
                heuristic_id=receipt.get("heuristic_id", plan.heuristic_id),
                connection=conn,
            )
            await parts.decisions.set_outcome(tenant, feedback.response_id, signal, connection=conn)
        return FeedbackReceipt(
            response_id=feedback.response_id,
            accepted=True,
            signal=signal,
            magnitude=magnitude,
            effect=effect,
            detail=plan.detail,
            **{"heuristic_id": plan.heuristic_id, **receipt},
        )

    async def _move(
        self, conn: AsyncConnection, tenant: str, plan: _Plan, feedback: Feedback, signed: float
    ) -> tuple[dict[str, Any], str]:
        assert plan.heuristic_id is not None
        parts = self._service.parts
        repository = parts.heuristic_store
        update: ConfidenceUpdate | None | NotAFire = NOT_A_FIRE
        if plan.effect == "updated" and parts.rate_fire is not None:
            # the fired heuristic: learning's explicit channel (last click wins in confidence and in
            # the outcome counters, ignore streak reset)
            update = await parts.rate_fire(conn, tenant, feedback.response_id, feedback, signed)
        rated_fire = update is not NOT_A_FIRE
        if not rated_fire and signed == 0:
            return {}, "recorded"  # a neutral score on a decision with no fire record moves nothing
        if not rated_fire:
            # a reinforcement keyed by the feedback, so a later rating can take exactly it back
            key = f"taught:{feedback.key}" if plan.effect == "reinforced" else None
            item = EvidenceItem(plan.heuristic_id, signed > 0, abs(signed), feedback.source, key=key, explicit=True)
            (update,) = await repository.apply_evidence(tenant, [item], connection=conn, missing_ok=True)
        if not isinstance(update, ConfidenceUpdate):
            return {}, "recorded"
        if signed == 0:
            return {"old_confidence": update.old_confidence, "new_confidence": update.new_confidence}, "withdrawn"
        if plan.effect == "updated" and not rated_fire:
            # a decision with no fire record (made before fires were recorded): counted per rating
            await repository.record_outcome(tenant, plan.heuristic_id, success=signed > 0, connection=conn)
        details = {"old_confidence": update.old_confidence, "new_confidence": update.new_confidence}
        return details, plan.effect if update.applied else update.effect

    async def _withdraw(
        self, conn: AsyncConnection, tenant: str, lesson: Lesson, feedback: Feedback
    ) -> tuple[dict[str, Any], str]:
        """Take back what this decision's earlier positive rating taught."""
        repository = self._service.parts.heuristic_store
        receipt: dict[str, Any] = {"heuristic_id": lesson.heuristic_id}
        if lesson.effect == "created":
            if await repository.delete_untried(tenant, lesson.heuristic_id, connection=conn):
                return receipt, "the heuristic it taught was deleted: never used since"
            return receipt, "the heuristic it taught is kept: it has been used since and learns from its own outcomes"
        taught = await repository.evidence_for_key(tenant, f"taught:{lesson.key}", connection=conn)
        if taught is None:
            return receipt, "nothing to take back: the reinforcement was not applied"
        item = EvidenceItem(
            lesson.heuristic_id, taught.positive, 0.0, feedback.source, key=f"withdrawn:{feedback.key}", retract=taught
        )
        (update,) = await repository.apply_evidence(tenant, [item], connection=conn, missing_ok=True)
        if update is None:
            return receipt, "the heuristic it reinforced is gone"
        receipt.update(old_confidence=update.old_confidence, new_confidence=update.new_confidence)
        return receipt, "the reinforcement is taken back"

    async def _lesson(self, tenant: str, trace: ReasoningTrace, *, connection: AsyncConnection | None) -> Lesson | None:
        """What this LLM-path decision's ratings teach now (None on other paths)."""
        if trace.path != "llm":
            return None
        if connection is not None:
            return await self._ledger.standing_lesson(tenant, trace.response_id, connection=connection)
        async with self._service.parts.database.connect() as conn:
            return await self._ledger.standing_lesson(tenant, trace.response_id, connection=conn)

    async def _plan(
        self, tenant: str, trace: ReasoningTrace, signal: Signal, lesson: Lesson | None, *, learn: bool = True
    ) -> _Plan:
        if trace.fired_heuristic_id is not None:  # a neutral takes a standing rating of the fire back
            return _Plan("updated", heuristic_id=trace.fired_heuristic_id)
        if lesson is not None:
            if signal == "positive":
                detail = "this decision already taught this heuristic; a rating teaches once (last click wins)"
                return _Plan("already_learned", heuristic_id=lesson.heuristic_id, detail=detail)
            return _Plan("withdrawn", heuristic_id=lesson.heuristic_id, withdraw=lesson)
        if trace.path == "llm" and signal == "positive" and self._service.settings.learn_from_feedback:
            if not learn:
                return _Plan("recorded", detail="another rating of this decision changed what it teaches meanwhile")
            return await self._learn(tenant, trace)
        return _Plan("recorded")

    async def _learn(self, tenant: str, trace: ReasoningTrace) -> _Plan:
        settings = self._service.settings
        extracted: ExtractedPattern = await extract_pattern(self._service.templates.pattern, trace, self._service.llm)
        note = f"pattern from {extracted.source}" + (
            f" ({extracted.fallback_reason})" if extracted.fallback_reason else ""
        )
        problem = self._gate.problem(extracted.pattern)
        if problem is not None:
            return _Plan("rejected", detail=f"{note}; quality gate: {problem}")
        pattern = extracted.pattern
        memory = self._service.parts.heuristics
        vectors = await memory.embedder.embed([pattern.condition])  # once: to match now, to store later
        matches = await memory.match_vector(
            tenant,
            vectors[0],
            text=pattern.condition,
            source=trace.event_source or None,
            k=1,
            min_similarity=settings.reinforce_threshold,
            include_general=True,
        )
        if matches:
            return _Plan("reinforced", heuristic_id=matches[0].heuristic.id, detail=note)
        create = HeuristicCreate(
            domain=trace.event_source,
            name=f"Learned: {pattern.condition[:50]}",
            condition_text=pattern.condition,
            action_text=pattern.action.message,
            confidence=settings.learned_confidence,
            origin="learned",
            origin_id=trace.response_id,
            attributes={"action_type": pattern.action.type, "pattern_source": extracted.source},
        )
        return _Plan("created", create=create, vectors=vectors, detail=note)
