"""Seed 003's pipeline for a batch of runs: summarise → embed → search → pre-filter → judge → execute.

One run is a batch of one. Summaries and embeddings are computed once, outside any
transaction; planning and execution are repeated (``max_attempts``) only when a
concurrent writer invalidated the plan, so the same run admitted twice at once ends as
one ADD and one NOT (the unique content key decides which).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from phronesis.admission.calibration_store import Calibration, CalibrationStore
from phronesis.admission.executor import Executor, StalePlan
from phronesis.admission.fingerprints import content_hash, task_id_for
from phronesis.admission.models import AdmissionResult, RunIn
from phronesis.admission.planner import Planner, Prepared
from phronesis.admission.run_repository import RunRepository
from phronesis.admission.run_vectors import RunVectors
from phronesis.admission.settings import AdmissionSettings
from phronesis.admission.summaries import Summariser, Summary
from phronesis.embeddings.types import Embedder, Vectors, embed_in_chunks
from phronesis.exceptions import ConflictError, InvalidInputError
from phronesis.ids import new_id
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


@dataclass(frozen=True, slots=True)
class AdmissionParts:
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
        identified = [self._identify(position, run) for position, run in enumerate(runs)]
        lookup = await parts.runs.by_content(tenant, [r.key for r in identified])
        # the tenant's thresholds are read while the runs are summarised and embedded
        prepared, tuned = await asyncio.gather(self._prepare(identified, lookup, batch=batch), self._tuned(tenant))
        low = tuned.get("admission.low_similarity")
        batch_id = new_id() if batch else None
        # the first plan reuses the duplicate lookup made before embedding; a twin stored since
        # then is caught by the unique content key (ConflictError: plan again, reading afresh)
        known: Mapping[tuple[str, str, str], tuple[str, str]] | None = lookup
        for attempt in range(1, self._settings.max_attempts + 1):
            calibrated = await parts.calibrations.current(tenant)  # cached: rarely a read
            while True:
                view = await parts.planner.load(tenant, prepared, hashes=known, low_similarity=low)
                known = None
                missing = parts.planner.unprepared(prepared, view)
                if not missing:
                    break
                # their stored twin was purged meanwhile: embed them after all and read again
                again = [Identified(p.position, p.data, p.run_id, p.task_id, p.content_hash) for p in missing]
                redone = {p.position: p for p in await self._prepare(again, {}, batch=batch)}
                prepared = [redone.get(p.position, p) for p in prepared]
            threshold = self.duplicate_threshold(tuned.get("admission.duplicate_threshold"), calibrated)
            judge = None if calibrated is None else calibrated.pair_judge
            plans = await parts.planner.decide(
                prepared, view, duplicate_threshold=threshold, pair_judge=judge, low_similarity=low
            )
            try:
                return await parts.executor.execute(tenant, plans, batch_id=batch_id)
            except (StalePlan, ConflictError) as exc:
                if attempt == self._settings.max_attempts:
                    raise ConflictError("runs", f"memory kept changing under this admission: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

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
