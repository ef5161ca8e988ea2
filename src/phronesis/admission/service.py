"""Seed 003's pipeline for a batch of runs: summarise → embed → search → pre-filter → judge → execute.

One run is a batch of one. Summaries and embeddings are computed once, outside any
transaction. The rest runs through the decision skeleton (``phronesis.decision.decide_each``:
this service is admission's ``EachStages``): the context is memory as the batch sees it, the
cheap stage the pre-filter, the expensive stage the LLM judge (the rule judge its fallback), the
check settles each plan so later runs see it, and the effects and records commit together. It is
repeated (``max_attempts``) only when a concurrent writer invalidated a plan, so the same run
admitted twice at once ends as one ADD and one NOT (the unique content key decides which).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field

from phronesis import decision as skeleton
from phronesis.admission.calibration_store import Calibration, CalibrationStore
from phronesis.admission.executor import Applied, Executor, StalePlan
from phronesis.admission.fingerprints import content_hash, task_id_for
from phronesis.admission.models import AdmissionResult, RunIn
from phronesis.admission.pair_judge import PairJudge
from phronesis.admission.planner import Plan, Planner, Prepared, Screened, View
from phronesis.admission.run_repository import RunRepository
from phronesis.admission.run_vectors import RunVectors
from phronesis.admission.settings import AdmissionSettings
from phronesis.admission.summaries import Summariser, Summary
from phronesis.audit.models import DecisionKind, NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.decision import decide_each
from phronesis.embeddings.types import Embedder, Vectors, embed_in_chunks
from phronesis.exceptions import ConflictError, InvalidInputError
from phronesis.ids import new_id
from phronesis.storage.database import Database
from phronesis.storage.point_transaction import PointTransaction
from phronesis.tuning import TenantValues

__all__ = ["AdmissionService"]

SUMMARY_CONCURRENCY = 8


@dataclass(frozen=True, slots=True)
class Identified:
    """A run with its id, task identity and content hash, before it is summarised and embedded."""

    position: int
    data: RunIn
    run_id: str
    task_id: str
    content_hash: str

    @property
    def key(self) -> tuple[str, str, str]:
        """The exact-duplicate key: (agent, user, content hash)."""
        return (self.data.agent_id, self.data.user_id, self.content_hash)


@dataclass(slots=True)
class Planning:
    """One attempt at a batch, as the skeleton's input: the prepared runs (re-prepared when a twin
    was purged), the duplicate lookup made before embedding (first attempt only), the tenant's
    tuned thresholds and the batch's id."""

    prepared: list[Prepared]
    known: Mapping[tuple[str, str, str], tuple[str, str]] | None
    tuned: dict[str, float]
    batch_id: str | None
    batch: bool
    started: float = 0.0
    """When the admission began (``time.perf_counter``): each record's latency is the whole
    decision's, its summary, embedding and any judge's call included (a batch: until its commit)."""
    writing: bool = False
    """The effects began: a conflict from here on is a concurrent writer's (plan again), not the caller's."""

    def began_writing(self) -> None:
        self.writing = True


@dataclass(slots=True)
class Admitting:
    """A batch's context as admission's stages pass it on."""

    planning: Planning
    tenant: str
    prepared: list[Prepared]
    view: View
    duplicate_threshold: float
    pair_judge: PairJudge | None
    low_similarity: float | None
    batch_id: str | None
    screened: dict[int, Screened] = field(default_factory=dict)
    """What the pre-filter passed to the judge, by run position."""
    applied: Applied | None = None
    decision_ids: dict[int, str] = field(default_factory=dict)
    """Each run's decision id, by position, as the effects wrote it."""


def _verdict(plan: Plan) -> skeleton.Verdict[Plan]:
    """A plan as the skeleton's verdict: the stage that decided it and its reason."""
    return skeleton.Verdict(plan, plan.verdict.stage, plan.verdict.reason)


@dataclass(frozen=True, slots=True)
class AdmissionParts:
    database: Database
    decisions: DecisionRecordRepository
    runs: RunRepository
    index: RunVectors
    planner: Planner
    executor: Executor
    summariser: Summariser
    calibrations: CalibrationStore
    embedder: Embedder
    tenant_settings: TenantValues | None = None
    """Where the tenant's own low threshold is read, at each admission (many processes)."""


class AdmissionService:
    def __init__(self, settings: AdmissionSettings, parts: AdmissionParts) -> None:
        self._settings = settings
        self._parts = parts

    async def admit(self, tenant: str, run: RunIn) -> AdmissionResult:
        return (await self.admit_many(tenant, [run], batch=False))[0]

    async def admit_many(self, tenant: str, runs: Sequence[RunIn], *, batch: bool = True) -> list[AdmissionResult]:
        if not runs:
            raise InvalidInputError("runs", "at least one run is required")
        if len(runs) > self._settings.max_batch:
            raise InvalidInputError("runs", f"at most {self._settings.max_batch} runs per batch")
        seen: dict[str, int] = {}
        for position, run in enumerate(runs):
            if run.id is not None:
                if run.id in seen:
                    raise InvalidInputError(f"runs.{position}.id", f"run {run.id!r} appears twice in the batch")
                seen[run.id] = position
        parts = self._parts
        started = time.perf_counter()
        identified = [self._identify(position, run) for position, run in enumerate(runs)]
        lookup = await parts.runs.by_content(tenant, [r.key for r in identified])
        # the tenant's thresholds are read while the runs are summarised and embedded
        prepared, tuned = await asyncio.gather(self._prepare(identified, lookup, batch=batch), self._tuned(tenant))
        batch_id = new_id() if batch else None
        # the first plan reuses the duplicate lookup made before embedding; a twin stored since
        # then is caught by the unique content key (ConflictError: plan again, reading afresh)
        known: Mapping[tuple[str, str, str], tuple[str, str]] | None = lookup
        for attempt in range(1, self._settings.max_attempts + 1):
            planning = Planning(prepared, known, tuned, batch_id, batch, started)
            try:
                decided = await decide_each(self, tenant, planning, records=parts.decisions)
            except (StalePlan, ConflictError) as exc:
                if not planning.writing:  # refused while planning (an id clash, a bad replaces): the caller's
                    raise
                if attempt == self._settings.max_attempts:
                    raise ConflictError("runs", f"memory kept changing under this admission: {exc}") from exc
                prepared, known = planning.prepared, None  # as re-prepared, if a twin was purged
                continue
            applied = decided.context.applied
            assert applied is not None  # the effects ran
            parts.executor.committed(tenant, applied)
            return applied.results
        raise AssertionError("unreachable")  # pragma: no cover

    # -- admission's stages (``phronesis.decision.EachStages``), in the order ``decide_each`` runs them

    kind: DecisionKind = "admission"

    async def context(self, tenant: str, given: Planning) -> Admitting:
        """Memory as the batch sees it (``Planner.load``: the index searched, the stored runs read),
        with the tenant's duplicate threshold and pair judge. A run left unembedded as an exact
        duplicate whose twin was purged meanwhile is summarised and embedded after all."""
        parts = self._parts
        low = given.tuned.get("admission.low_similarity")
        calibrated = await parts.calibrations.current(tenant)  # cached: rarely a read
        known = given.known
        while True:
            view = await parts.planner.load(tenant, given.prepared, hashes=known, low_similarity=low)
            known = None
            missing = parts.planner.unprepared(given.prepared, view)
            if not missing:
                break
            again = [Identified(p.position, p.data, p.run_id, p.task_id, p.content_hash) for p in missing]
            redone = {p.position: p for p in await self._prepare(again, {}, batch=given.batch)}
            given.prepared = [redone.get(p.position, p) for p in given.prepared]
        threshold = self.duplicate_threshold(given.tuned.get("admission.duplicate_threshold"), calibrated)
        judge = None if calibrated is None else calibrated.pair_judge
        return Admitting(given, tenant, given.prepared, view, threshold, judge, low, given.batch_id)

    def items(self, context: Admitting) -> Sequence[Prepared]:
        return context.prepared

    async def cheap(self, context: Admitting, item: Prepared) -> skeleton.Verdict[Plan] | None:
        """The pre-filter, without any LLM: a re-sent run, the caller's REPLACE, an exact duplicate,
        nothing similar enough. The rest goes to the judge."""
        screened = self._parts.planner.screen(
            item,
            context.view,
            duplicate_threshold=context.duplicate_threshold,
            pair_judge=context.pair_judge,
            low_similarity=context.low_similarity,
        )
        if isinstance(screened, Screened):
            context.screened[item.position] = screened
            return None
        return _verdict(screened)

    async def expensive(self, context: Admitting, item: Prepared) -> skeleton.Verdict[Plan]:
        """The LLM judge (its unusable answers take the configured fail-safe, ``Planner.by_llm``)."""
        return _verdict(await self._parts.planner.by_llm(item, context.screened[item.position]))

    def fallback(self, context: Admitting, item: Prepared, why: str) -> skeleton.Verdict[Plan]:
        """Without an LLM judge, the rule judge decides (seed 003)."""
        return _verdict(self._parts.planner.by_rules(item, context.screened[item.position]))

    async def check(
        self, context: Admitting, item: Prepared, verdict: skeleton.Verdict[Plan]
    ) -> skeleton.Verdict[Plan]:
        """The plan with the thresholds and judges it met, remembered so the batch's later runs see it."""
        plan = self._parts.planner.settle(
            verdict.outcome,
            context.view,
            pair_judge=context.pair_judge is not None,
            low_similarity=context.low_similarity,
        )
        return _verdict(plan)

    def transaction(self) -> AbstractAsyncContextManager[PointTransaction]:
        """An admission's writes are point writes: a few rows each, by key (see ``point_transaction``)."""
        return self._parts.database.point_transaction()

    async def effects(
        self, writes: PointTransaction, context: Admitting, decided: Sequence[tuple[Prepared, skeleton.Verdict[Plan]]]
    ) -> Sequence[skeleton.Verdict[Plan]]:
        """Seed 003's effects, each plan's preconditions re-checked under the transaction (``Executor``)."""
        context.planning.began_writing()
        plans = [verdict.outcome for _, verdict in decided]
        applied = await self._parts.executor.apply(writes, context.tenant, plans, batch_id=context.batch_id)
        context.applied = applied
        context.decision_ids = {
            item.position: result.decision_id for (item, _), result in zip(decided, applied.results, strict=True)
        }
        return [verdict for _, verdict in decided]

    def record(self, context: Admitting, item: Prepared, verdict: skeleton.Verdict[Plan]) -> NewDecisionRecord:
        decision_id = context.decision_ids[item.position]  # the effects' memory decision's id
        latency_ms = (time.perf_counter() - context.planning.started) * 1000
        return self._parts.executor.record(
            context.tenant, decision_id, verdict.outcome, context.batch_id, latency_ms=latency_ms
        )

    async def _tuned(self, tenant: str) -> dict[str, float]:
        """The tenant's own ``admission.low_similarity`` and ``admission.duplicate_threshold``, in one
        read at each admission (many processes); those it has not tuned are absent."""
        store = self._parts.tenant_settings
        return {} if store is None else await store.applied(tenant, "admission.")

    def duplicate_threshold(self, applied: float | None, calibrated: Calibration | None) -> float:
        """The duplicate threshold a tenant's admissions use: the value applied for it (a replay's
        Apply, ``phronesis tune``: the latest explicit, recorded choice), else its calibrated one
        (``admission calibrate``), else the configured one (seed 003's 0.95). A fitted pair judge
        still decides the pairs it sees either way."""
        if applied is not None:
            return applied
        return self._settings.duplicate_threshold if calibrated is None else calibrated.duplicate_threshold

    @staticmethod
    def _identify(position: int, run: RunIn) -> Identified:
        task_id = run.task_id or task_id_for(run.task)
        return Identified(position, run, run.id or new_id(), task_id, content_hash(run, task_id))

    async def _prepare(
        self,
        runs: Sequence[Identified],
        known: Mapping[tuple[str, str, str], tuple[str, str]],
        *,
        batch: bool,
    ) -> list[Prepared]:
        """Summarise and embed the runs, except exact duplicates of stored content (``known``):
        seed 003 decides those NOT without any LLM, so they cost no summary call and no embedding."""
        parts = self._parts
        limit = asyncio.Semaphore(SUMMARY_CONCURRENCY)

        async def summarise(run: RunIn, twin: tuple[str, str] | None) -> Summary:
            if twin is not None:
                run_id, text = twin
                return Summary(text, "stored", f"exact duplicate of run {run_id}: neither summarised nor embedded")
            async with limit:
                return await parts.summariser.summarise(run)

        twins = [known.get(r.key) for r in runs]
        summaries = await asyncio.gather(*(summarise(r.data, twin) for r, twin in zip(runs, twins, strict=True)))
        embedded = [i for i, twin in enumerate(twins) if twin is None]
        vectors: list[Vectors | None] = [None] * len(runs)
        if embedded:
            fresh = await embed_in_chunks(parts.embedder, [summaries[i].text for i in embedded])
            for i, vector in zip(embedded, fresh, strict=True):
                vectors[i] = vector
        return [
            Prepared(
                position=r.position,
                data=r.data,
                run_id=r.run_id,
                task_id=r.task_id,
                content_hash=r.content_hash,
                summary=summary,
                vector=vector,
                field_prefix=f"runs.{r.position}." if batch else "",
            )
            for r, summary, vector in zip(runs, summaries, vectors, strict=True)
        ]
