"""The executive decision point as a service: the pipeline every decision follows (ARCHITECTURE).

input → context (candidates from heuristic memory) → cheap stage (emergency rule, the
strategy's heuristic path) → expensive stage (the strategy's LLM path) → check (caps,
fallbacks, inside the strategy) → record (the decision record, in one transaction with
the fire it causes) → effects after the response (convergence and endorsement).
"""

from __future__ import annotations

import asyncio
import time
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal, NamedTuple

from phronesis.audit.models import DecisionKind, NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.background import BackgroundTasks
from phronesis.clock import Clock
from phronesis.decision import Verdict, decide
from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import ConfigurationError, InvalidInputError
from phronesis.executive.candidates import candidates_from_memory
from phronesis.executive.convergence import ENDORSEMENT_SOURCE, detect_convergence, endorsement_magnitude
from phronesis.executive.emergency import EmergencyRule
from phronesis.executive.events import EventDecision, EventRequest
from phronesis.executive.experiment import Experiment
from phronesis.executive.explain import explain_executive
from phronesis.executive.factory import STRATEGIES, create_decision_strategy
from phronesis.executive.heuristic_first import effective_threshold
from phronesis.executive.learning_hooks import FireRater, FireRecorder, FollowUp, FollowUpObserver
from phronesis.executive.prompt_builder import PromptTemplates
from phronesis.executive.records import executive_record
from phronesis.executive.recovery import RecoveryRule
from phronesis.executive.results import fire, reject
from phronesis.executive.settings import ExecutiveSettings
from phronesis.executive.traces import DecisionRecordTraceStore, ReasoningTrace
from phronesis.executive.types import (
    DecisionContext,
    DecisionPath,
    DecisionResult,
    DecisionStrategy,
    HeuristicCandidate,
    Picked,
)
from phronesis.heuristics.memory import HeuristicMemory, SetAside
from phronesis.heuristics.repository import HeuristicRepository
from phronesis.ids import new_id
from phronesis.llm.limited import ConcurrencyLimitedLLM
from phronesis.llm.types import LLMProvider
from phronesis.storage.database import Database
from phronesis.storage.point_transaction import PointTransaction
from phronesis.tuning import Applied, TenantValues

__all__ = ["ExecutiveService"]


@dataclass(frozen=True, slots=True)
class ExecutiveParts:
    """What the executive needs from the engine."""

    database: Database
    heuristics: HeuristicMemory
    """Where candidates are matched."""
    heuristic_store: HeuristicRepository
    """Where a fire's count and an endorsement's evidence are written (heuristic memory's store)."""
    decisions: DecisionRecordRepository
    embedder: Embedder
    llm: LLMProvider | None
    clock: Clock
    background: BackgroundTasks
    record_fire: FireRecorder | None = None
    """Learning's fire record; without it only the heuristic's fire count moves."""
    rate_fire: FireRater | None = None
    """Learning's explicit channel for heuristic-path ratings; without it the heuristic is updated directly."""
    observe: FollowUpObserver | None = None
    """Learning's follow-up channel: the event undoes, confirms or ignores its source's open fires."""
    tenant_settings: TenantValues | None = None
    """A tenant's applied threshold; None: the configured one for every tenant."""


@dataclass(slots=True)
class EventContext:
    """An event's context as the executive's stages pass it on: what was read before deciding, then
    what the cheap stage picked (for the expensive stage) and what the check measured."""

    tenant: str
    decision: DecisionContext
    strategy: DecisionStrategy
    assigned: Assigned
    follow_up: FollowUp | None
    started: float
    """``time.perf_counter()`` when the event arrived: the record's latency counts from it."""
    threat: bool = False
    """A threat decided as immediate (the emergency rule's second half)."""
    picked: Picked | None = None
    fired_vector: Vectors | None = None
    latency_ms: float = 0.0
    set_aside: list[SetAside] = field(default_factory=list)
    """Near heuristics memory's scope judgement ruled out (the event is their condition's opposite,
    or a counter-example is as near): the record says which and why."""


class Assigned(NamedTuple):
    """The strategy an event is decided by, what chose it, and the A/B key value it was assigned by."""

    name: str
    source: Literal["event", "experiment", "tenant", "configured"]
    assignment: str | None = None


def _strategy_options(settings: ExecutiveSettings, tie_epsilon: float) -> dict[str, Any]:
    return {
        "threshold": settings.heuristic_threshold,
        "max_candidates": settings.max_candidates,
        "llm_confidence_ceiling": settings.llm_confidence_ceiling,
        "threshold_reduction": settings.urgency_threshold_reduction,
        "immediate_min_urgency": settings.urgency_immediate_min,
        "soon_min_urgency": settings.urgency_soon_min,
        "reasonable_similarity": settings.urgency_reasonable_similarity,
        "high_similarity": settings.urgency_high_similarity,
        "tie_epsilon": tie_epsilon,
        "exploration_rate": settings.exploration_rate,
    }


URGENCY = "executive.urgency."
"""The tenant settings of the urgency design's cut-offs (``urgency_tiered.CUTOFFS``)."""


class ExecutiveService:
    def __init__(self, settings: ExecutiveSettings, parts: ExecutiveParts, *, tie_epsilon: float = 0.02) -> None:
        self.settings = settings
        self.parts = parts
        self.llm = None if parts.llm is None else ConcurrencyLimitedLLM(parts.llm, settings.max_concurrent_llm)
        self.templates = PromptTemplates.load(settings.system_prompt_file, settings.prediction_prompt_file)
        self.traces = DecisionRecordTraceStore(
            parts.decisions, parts.clock, timedelta(seconds=settings.trace_retention_s)
        )
        self._options = _strategy_options(settings, tie_epsilon)
        self.strategies: dict[str, DecisionStrategy] = {}
        for name in sorted({settings.decision_strategy, *settings.experiment_arms}):
            self.strategies[name] = self._build(name)
        self.experiment = (
            Experiment.from_weights(settings.experiment_arms, settings.experiment_key, settings.experiment_salt)
            if settings.experiment_arms
            else None
        )
        self.emergency = EmergencyRule(
            settings.emergency_enabled, settings.emergency_min_confidence, settings.emergency_min_threat
        )
        self.recovery = RecoveryRule(
            parts.heuristic_store,
            parts.clock,
            after_sec=settings.probation_after_sec,
            enabled=settings.recovery_enabled,
        )

    def _build(self, name: str) -> DecisionStrategy:
        return create_decision_strategy(name, templates=self.templates, traces=self.traces, **self._options)

    def strategy_for(self, name: str) -> DecisionStrategy:
        """A configured strategy, or one built on demand for a request that forces it."""
        strategy = self.strategies.get(name)
        if strategy is None:
            if name not in STRATEGIES:
                raise InvalidInputError(
                    "strategy", f"unknown strategy; expected one of {', '.join(sorted(STRATEGIES))}"
                )
            strategy = self.strategies[name] = self._build(name)
        return strategy

    def _assign(self, request: EventRequest, event_id: str, tenants: str | None) -> Assigned:
        """The strategy, in order: the event's own; the A/B experiment's arm (keyed by user,
        source or event; a missing user id falls back to the event id); the tenant's applied
        ``executive.strategy`` (a replay's Apply); the configured one."""
        if request.strategy is not None:
            return Assigned(request.strategy, "event")
        if self.experiment is not None:
            key = self.experiment.key
            value = {"user": request.user_id or event_id, "source": request.source, "event": event_id}[key]
            return Assigned(self.experiment.assign(value), "experiment", f"{key}:{value}")
        if tenants is not None:
            return Assigned(tenants, "tenant")
        return Assigned(self.settings.decision_strategy, "configured")

    async def context_for(
        self, tenant: str, request: EventRequest, event_id: str
    ) -> tuple[DecisionContext, str | None, list[SetAside]]:
        """The decision's context, the tenant's applied strategy (None: none applied), and the near
        heuristics memory set aside, with the tenant's settings read once beside the embedding."""
        if self.settings.known_sources and request.source not in self.settings.known_sources:
            raise InvalidInputError("source", f"unknown source {request.source!r}")
        applied = self._tenant_values(tenant)
        set_aside: list[SetAside] = []
        if request.candidates is None:  # the embedding and the settings' read, side by side
            (candidates, set_aside), values = await asyncio.gather(
                self.candidates(tenant, request.text, request.source), applied
            )
        else:
            candidates, values = request.candidates, await applied
        tuned = values.numbers
        biases = request.personality_biases
        source: Literal["event", "default"] = "event"
        if "confidence_threshold" not in biases:
            source = "default"
            bias = tuned.get("executive.personality_bias", self.settings.personality_bias)
            biases = {**biases, "confidence_threshold": bias} if bias else biases
        context = DecisionContext(
            event_id=event_id,
            event_text=request.text,
            event_source=request.source,
            salience=request.salience,
            candidates=candidates,
            immediate=request.immediate,
            goals=self.settings.goals if request.goals is None else request.goals,
            personality_biases=biases,
            bias_source=source,
            urgency_cutoffs={
                name.removeprefix(URGENCY): value for name, value in tuned.items() if name.startswith(URGENCY)
            },
            urgency=request.urgency,
            base_threshold=tuned.get("executive.heuristic_threshold", self.settings.heuristic_threshold),
        )
        return context, values.choices.get("executive.strategy"), set_aside

    async def _tenant_values(self, tenant: str) -> Applied:
        """The tenant's applied threshold, default bias, urgency cut-offs and strategy, in one
        read at each decision (many processes): a value applied anywhere holds for the next decision."""
        if self.parts.tenant_settings is None:
            return Applied(numbers={}, choices={})
        return await self.parts.tenant_settings.read(tenant, "executive.")

    async def candidates(self, tenant: str, text: str, source: str) -> tuple[list[HeuristicCandidate], list[SetAside]]:
        """Seed 000 candidates from heuristic memory, with memory's limit and similarity floor, and
        the near heuristics its scope judgement set aside."""
        return await candidates_from_memory(self.parts.heuristics, tenant, text, source=source)

    async def decide_event(self, tenant: str, request: EventRequest) -> EventDecision:
        """Seed 000 on one event, through the decision skeleton (``phronesis.decision.decide``: this
        service is the executive's ``Stages``); convergence is scheduled after the record."""
        decided = await decide(self, tenant, request, records=self.parts.decisions)
        event, result = decided.context, decided.verdict.outcome
        if result.path is DecisionPath.LLM:
            self._schedule_convergence(tenant, event.decision, result)
        failure, detail = result.metadata.get("llm_error"), result.metadata.get("detail")
        if failure is None and "prediction_fallback" in result.metadata:
            # an answer whose success prediction failed is degraded, not a silent 0.5/0.5
            failure = f"prediction_{result.metadata['prediction_fallback']}"
            detail = result.metadata.get("prediction_detail")
        return EventDecision(
            accepted=result.path in (DecisionPath.HEURISTIC, DecisionPath.LLM) and bool(result.response_text),
            degraded=failure is not None,
            error=_failure(failure, detail),
            response_id=result.response_id,
            response_text=result.response_text,
            predicted_success=result.predicted_success,
            prediction_confidence=result.prediction_confidence,
            prompt_text=result.prompt_text,
            decision_path=result.path.value,
            matched_heuristic_id=result.matched_heuristic_id,
            event_id=event.decision.event_id,
            strategy=event.assigned.name,
            reason=result.metadata.get("reason"),
            candidates=event.decision.candidates,
            metadata=result.metadata,
            latency_ms=event.latency_ms,
            explanation=explain_executive(decided.record),  # the record written, as it is kept
        )

    # The executive's stages (``phronesis.decision.Stages``), in the order ``decide`` runs them.

    kind: DecisionKind = "executive"

    async def context(self, tenant: str, given: EventRequest) -> EventContext:
        """The event's candidates (from heuristic memory, or the caller's), the tenant's tuned values,
        the strategy it is assigned, and what it answers of its source's open fires (an "undo that"
        does not fire what it just undid)."""
        started = time.perf_counter()
        event_id = given.event_id or new_id()
        if given.strategy is not None:
            self.strategy_for(given.strategy)  # an unknown one is refused before any work
        decision, tenants, set_aside = await self.context_for(tenant, given, event_id)
        assigned = self._assign(given, event_id, tenants)
        strategy = self.strategy_for(assigned.name)
        follow_up = await self._follow_up(tenant, given, event_id, decision)
        if follow_up is not None and follow_up.undone:
            kept = [c for c in decision.candidates if c.heuristic_id not in follow_up.undone]
            decision = decision.model_copy(update={"candidates": kept})
        return EventContext(tenant, decision, strategy, assigned, follow_up, started, set_aside=set_aside)

    async def cheap(self, context: EventContext) -> Verdict[DecisionResult] | None:
        """The emergency fast path, then the strategy's heuristic path. A threat no heuristic answers
        at the emergency bar is decided as immediate (the LLM is asked whenever there is one)."""
        emergency = self.emergency.candidate(context.decision)
        if emergency is not None:
            name = context.assigned.name
            return _verdict(fire(emergency, new_id(), {"strategy": name, "reason": "emergency_fast_path"}))
        decision = context.decision
        if self.emergency.threatening(decision):
            context.threat = True
            decision = decision.model_copy(update={"immediate": True})
        context.picked = context.strategy.pick(decision, llm_available=self.llm is not None)
        fired = context.picked.fired
        return None if fired is None else _verdict(fired)

    async def expensive(self, context: EventContext) -> Verdict[DecisionResult]:
        """The strategy's LLM path (REJECTED without an LLM, or for an event that is not immediate;
        the LLM's failures are its own fallbacks, ``llm_path``); a threat it rejects says why."""
        assert context.picked is not None  # the cheap stage ran
        result = await context.strategy.ask(context.picked, self.llm)
        if context.threat and result.path is DecisionPath.REJECTED:
            result = self._threat(context.decision, result)
        return _verdict(result)

    def fallback(self, context: EventContext, why: str) -> Verdict[DecisionResult]:
        """An LLM failure the LLM path did not answer itself: REJECTED, saying why."""
        metadata = {} if context.picked is None else context.picked.metadata
        return _verdict(reject("llm_error", new_id(), {**metadata, "detail": why}))

    async def check(self, context: EventContext, verdict: Verdict[DecisionResult]) -> Verdict[DecisionResult]:
        """The recovery rule for a rejection; what the follow-up did and what chose the strategy on
        the record; and, for a fire, the event's embedding, kept with the fire (so a negative outcome
        can tell a wrong match from a wrong action; from the embedder's cache, matching made it)."""
        result = verdict.outcome
        if result.path is DecisionPath.REJECTED:
            result = await self._probation(context.tenant, context.decision, result)
        if context.follow_up is not None and context.follow_up.fires:
            result.metadata["follow_up"] = context.follow_up.summary()
        result.metadata["strategy_source"] = context.assigned.source  # event, experiment, tenant, configured
        if result.path is DecisionPath.HEURISTIC and result.matched_heuristic_id is not None:
            context.fired_vector = (await self.parts.embedder.embed([context.decision.event_text]))[0]
        context.latency_ms = (time.perf_counter() - context.started) * 1000.0
        return _verdict(result)

    def transaction(self) -> AbstractAsyncContextManager[PointTransaction]:
        """Point statements, so one point transaction: on a SQLite file two hops to its writer lane
        (the fire, then the record with the commit) rather than the dozen an async connection takes."""
        return self.parts.database.point_transaction()

    async def effects(
        self, writes: PointTransaction, context: EventContext, verdict: Verdict[DecisionResult]
    ) -> Verdict[DecisionResult]:
        """The fire a heuristic decision causes, with its event (learning's fire record)."""
        result, event = verdict.outcome, context.decision
        if result.path is not DecisionPath.HEURISTIC or result.matched_heuristic_id is None:
            return verdict
        if self.parts.record_fire is None:
            await self.parts.heuristic_store.record_fire(
                context.tenant, result.matched_heuristic_id, transaction=writes, missing_ok=True
            )
            return verdict
        await self.parts.record_fire(
            writes,
            context.tenant,
            result.matched_heuristic_id,
            event_id=event.event_id,
            source=event.event_source,
            response_id=result.response_id,
            event_text=event.event_text[:4000],
            event_vector=context.fired_vector,
            probation_of=result.metadata.get("probation_of"),
        )
        return verdict

    def record(self, context: EventContext, verdict: Verdict[DecisionResult]) -> NewDecisionRecord:
        name, _, assignment = context.assigned
        return executive_record(
            context.tenant,
            context.decision,
            verdict.outcome,
            name,
            assignment,
            context.latency_ms,
            set_aside=[s.noted() for s in context.set_aside],
        )

    async def _probation(self, tenant: str, context: DecisionContext, rejected: DecisionResult) -> DecisionResult:
        """The recovery rule (``executive.recovery``): a rejected event whose best match fell below the
        threshold through one undo fires it on probation."""
        threshold = effective_threshold(self.settings.heuristic_threshold, context)
        probation = await self.recovery.probation(tenant, context, threshold)
        if probation is None:
            return rejected
        metadata = {
            **{k: v for k, v in rejected.metadata.items() if k != "reason"},
            "reason": "probation",
            "probation_of": probation.undo_key,
            "detail": probation.why,
        }
        return fire(probation.candidate, rejected.response_id, metadata)

    def _threat(self, decision: DecisionContext, rejected: DecisionResult) -> DecisionResult:
        """A threat no heuristic answers at the emergency bar, rejected even as immediate: the
        decision says why."""
        threat = decision.salience.get("threat", 0.0)
        why = (
            f"threat {threat:g}: no heuristic answers it and no LLM is configured; a person should look at it now"
            if self.llm is None
            else f"threat {threat:g}: no heuristic answers it and the LLM gave no answer"
        )
        return reject(
            "emergency_unmatched",
            rejected.response_id,
            {**rejected.metadata, "emergency": True, "detail": why, "rejected_as": rejected.metadata.get("reason")},
        )

    async def _follow_up(
        self, tenant: str, request: EventRequest, event_id: str, context: DecisionContext
    ) -> FollowUp | None:
        """Seed 001 implicit signals from an event that is decided rather than observed.
        The heuristics this event matches are its own situation recurring (three loads of washing
        in a row): their earlier fires are not ignored by it."""
        if not self.settings.observe_on_decide or self.parts.observe is None:
            return None
        recurring = frozenset(c.heuristic_id for c in context.candidates)
        return await self.parts.observe(
            tenant,
            event_id=event_id,
            source=request.source,
            text=request.text,
            recurring=recurring,
            reply_to=request.reply_to,
        )

    def _schedule_convergence(self, tenant: str, context: DecisionContext, result: DecisionResult) -> None:
        shown = set(result.metadata.get("shown_candidate_ids", ()))
        actions = [(c.heuristic_id, c.suggested_action) for c in context.candidates if c.heuristic_id in shown]
        if actions and result.response_text:
            self.parts.background.spawn(
                self.converge(tenant, result.response_id, result.response_text, actions),
                name=f"convergence:{result.response_id}",
            )

    async def converge(
        self, tenant: str, response_id: str, response_text: str, actions: list[tuple[str, str]]
    ) -> dict[str, Any] | None:
        """Record ``metadata.convergence`` and, at similarity ≥ threshold, endorse (seed 000 bootstrapping)."""
        convergence = await detect_convergence(self.parts.embedder, response_text, actions)
        if convergence is None:
            return None
        magnitude = endorsement_magnitude(
            convergence, threshold=self.settings.endorsement_threshold, weight=self.settings.endorsement_weight
        )
        patch: dict[str, Any] = {"convergence": convergence.model_dump()}
        async with self.parts.database.transaction() as conn:
            if magnitude is not None:
                update = await self.parts.heuristic_store.update_confidence(
                    tenant,
                    convergence.converged_heuristic_id,
                    positive=True,
                    magnitude=magnitude,
                    source=ENDORSEMENT_SOURCE,
                    connection=conn,
                    missing_ok=True,
                )
                patch["endorsement"] = None if update is None else {"magnitude": magnitude, "applied": update.applied}
            await self.parts.decisions.merge_attributes(tenant, response_id, patch, connection=conn)
        return patch

    async def get_trace(self, tenant: str, response_id: str) -> ReasoningTrace | None:
        return await self.traces.get(tenant, response_id)

    def require_llm(self, what: str) -> LLMProvider:
        if self.llm is None:
            raise ConfigurationError(f"{what} needs an LLM; set PHRONESIS_LLM__SPEC")
        return self.llm


def _verdict(result: DecisionResult) -> Verdict[DecisionResult]:
    """A strategy's result as the skeleton's verdict: its path, and its reason (or detail) in words."""
    reason = result.metadata.get("reason") or result.metadata.get("detail") or ""
    return Verdict(result, result.path.value, str(reason))


def _failure(reason: object, detail: object) -> str | None:
    """``<reason>: <detail>`` for a decision a part failed to make, else None."""
    if reason is None:
        return None
    return f"{reason}: {detail}" if detail else str(reason)
