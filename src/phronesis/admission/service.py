"""Seed 003's pipeline for a batch of runs: summarise → embed → search → pre-filter → judge → execute.

One run is a batch of one. Summaries and embeddings are computed once, outside any
transaction; planning and execution are repeated (``max_attempts``) only when a
concurrent writer invalidated the plan, so the same run admitted twice at once ends as
one ADD and one NOT (the unique content key decides which).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from phronesis.admission.calibration_store import CalibrationStore
from phronesis.admission.executor import Executor, StalePlan
from phronesis.admission.fingerprints import content_hash, task_id_for
from phronesis.admission.models import AdmissionResult, RunIn
from phronesis.admission.planner import Planner, Prepared
from phronesis.admission.run_index import RunIndex
from phronesis.admission.run_repository import RunRepository
from phronesis.admission.summaries import Summariser, Summary
from phronesis.embeddings.types import Embedder, embed_in_chunks
from phronesis.exceptions import ConflictError, InvalidInputError
from phronesis.settings import AdmissionSettings

__all__ = ["AdmissionService"]

SUMMARY_CONCURRENCY = 8


@dataclass(frozen=True, slots=True)
class AdmissionParts:
    runs: RunRepository
    index: RunIndex
    planner: Planner
    executor: Executor
    summariser: Summariser
    calibrations: CalibrationStore
    embedder: Embedder


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
                    raise InvalidInputError(f"runs[{position}].id", f"run {run.id!r} appears twice in the batch")
                seen[run.id] = position
        prepared = await self._prepare(runs, batch=batch)
        batch_id = uuid.uuid4().hex if batch else None
        parts = self._parts
        for attempt in range(1, self._settings.max_attempts + 1):
            async with parts.runs.reading() as conn:  # one connection for every read (see Planner.load)
                await parts.index.sync(conn)
                calibrated = await parts.calibrations.duplicate_threshold(tenant, connection=conn)
                view = await parts.planner.load(tenant, prepared, connection=conn)
            threshold = self._settings.duplicate_threshold if calibrated is None else calibrated
            plans = await parts.planner.decide(prepared, view, duplicate_threshold=threshold)
            try:
                return await parts.executor.execute(tenant, plans, batch_id=batch_id)
            except (StalePlan, ConflictError) as exc:
                if attempt == self._settings.max_attempts:
                    raise ConflictError("runs", f"memory kept changing under this admission: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    async def _prepare(self, runs: Sequence[RunIn], *, batch: bool) -> list[Prepared]:
        parts = self._parts
        limit = asyncio.Semaphore(SUMMARY_CONCURRENCY)

        async def summarise(run: RunIn) -> Summary:
            async with limit:
                return await parts.summariser.summarise(run)

        summaries = await asyncio.gather(*(summarise(run) for run in runs))
        vectors = await embed_in_chunks(parts.embedder, [s.text for s in summaries])
        prepared = []
        for position, (run, summary, vector) in enumerate(zip(runs, summaries, vectors, strict=True)):
            task_id = run.task_id or task_id_for(run.task)
            run_id = run.id or uuid.uuid4().hex
            prepared.append(
                Prepared(
                    position=position,
                    data=run,
                    run_id=run_id,
                    task_id=task_id,
                    content_hash=content_hash(run, task_id),
                    summary=summary,
                    vector=vector,
                    field_prefix=f"runs[{position}]." if batch else "",
                )
            )
        return prepared
