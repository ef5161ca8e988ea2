"""Seed 003's decision point as one object the engine, the API and the CLI share."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from phronesis.admission.calibration_store import CalibrationStore
from phronesis.admission.executor import Executor
from phronesis.admission.feedback import AdmissionFeedback, AdmissionFeedbackIn, AdmissionFeedbackStore
from phronesis.admission.graph_export import ExportFormat, TextSink, export_graph
from phronesis.admission.llm_judge import LLMJudge
from phronesis.admission.memory_decisions import MemoryDecisionRepository
from phronesis.admission.models import (
    AdmissionDecision,
    AdmissionResult,
    MemoryDecision,
    Run,
    RunIn,
    SearchHit,
    UndoResult,
)
from phronesis.admission.pair_judge import MIN_JUDGE_PAIRS, fit_and_score
from phronesis.admission.pairs import LabelledPair, Objective, calibrate_threshold, pair_metrics, pair_similarities
from phronesis.admission.planner import Planner
from phronesis.admission.removal import DeletedRun, RunRemoval
from phronesis.admission.run_index import RunIndex
from phronesis.admission.run_repository import RunRepository
from phronesis.admission.run_vectors import ChosenRuns, PgVectorRuns, RunVectors
from phronesis.admission.search import RunSearch
from phronesis.admission.service import AdmissionParts, AdmissionService
from phronesis.admission.settings import AdmissionSettings
from phronesis.admission.summaries import ExtractiveSummariser, LLMSummariser, Summariser
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.clock import Clock
from phronesis.embeddings.types import Embedder
from phronesis.exceptions import ConfigurationError, InvalidInputError
from phronesis.llm.types import LLMProvider
from phronesis.pages import Page
from phronesis.storage.database import Database
from phronesis.storage.feed_follower import SnapshotPolicy
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.vector_backend import VectorBackend
from phronesis.tuning import TenantValues

__all__ = ["AdmissionModule"]

FEW_PAIRS = 30
"""Fewer labelled pairs than this and ``calibrate`` warns: each pair moves the threshold."""


class AdmissionModule:
    def __init__(
        self,
        settings: AdmissionSettings,
        *,
        database: Database,
        embedder: Embedder,
        llm: LLMProvider | None,
        decisions: DecisionRecordRepository,
        clock: Clock,
        index: PartitionedIndex,
        follow_interval_s: float = 0.0,
        snapshot: SnapshotPolicy | None = None,
        tenant_settings: TenantValues | None = None,
        vector_backend: VectorBackend | None = None,
    ) -> None:
        if settings.judge == "llm" and llm is None:
            raise ConfigurationError("PHRONESIS_ADMISSION__JUDGE=llm needs an LLM (PHRONESIS_LLM__SPEC)")
        if settings.summariser == "llm" and llm is None:
            raise ConfigurationError("PHRONESIS_ADMISSION__SUMMARISER=llm needs an LLM (PHRONESIS_LLM__SPEC)")
        self.settings = settings
        self.embedder = embedder
        backend = vector_backend or VectorBackend()
        self.runs = RunRepository(database, backend=backend)
        self.memory_decisions = MemoryDecisionRepository(database)
        self.calibrations = CalibrationStore(database, clock, cache_s=settings.calibration_cache_sec)
        self.feedback = AdmissionFeedbackStore(self.memory_decisions, self.runs, decisions, clock)
        """Ratings of admission decisions, and the pairs they teach ``calibrate``."""
        self._database, self._decisions, self._clock = database, decisions, clock
        self._tenant_settings = tenant_settings
        self.in_process = RunIndex(
            self.runs, embedder, index, interval_s=follow_interval_s, monotonic=clock.monotonic, snapshot=snapshot
        )
        """The runs index held in this process (also for tuning: ``set_expansion_search``)."""
        extractive = ExtractiveSummariser(
            max_sentences=settings.summary_sentences, max_chars=settings.max_summary_chars
        )
        summariser: Summariser = extractive
        if llm is not None and settings.summariser != "extractive":
            summariser = LLMSummariser(
                llm, extractive, temperature=settings.summary_temperature, max_chars=settings.max_summary_chars
            )
        self._summariser = summariser
        self._judge: LLMJudge | None = None
        if llm is not None and settings.judge != "rules":
            self._judge = LLMJudge(llm, temperature=settings.temperature, max_tokens=settings.max_tokens)
        self._chosen = ChosenRuns(backend, self.in_process, PgVectorRuns(database))
        runs_index: RunVectors = self._chosen
        self.service = AdmissionService(
            self.settings,
            AdmissionParts(
                database=self._database,
                decisions=self._decisions,
                runs=self.runs,
                index=runs_index,
                planner=Planner(self.settings, self.runs, runs_index, llm_judge=self._judge),
                executor=Executor(self.runs, self.memory_decisions, self.embedder, self._clock, runs_index),
                summariser=self._summariser,
                calibrations=self.calibrations,
                embedder=self.embedder,
                tenant_settings=self._tenant_settings,
            ),
        )
        self._search = RunSearch(self.runs, runs_index, self.embedder)
        self.removal = RunRemoval(self._database, self.runs, self._clock, runs_index, self._decisions)

    async def rate(self, tenant: str, decision_id: str, rating: AdmissionFeedbackIn) -> AdmissionFeedback:
        """``feedback.rates.Rates``: a person's rating of a memory decision (seed 003's feedback loop)."""
        return await self.feedback.rate(tenant, decision_id, rating)

    async def calibration(self, tenant: str) -> dict[str, Any] | None:
        """The tenant's stored calibration of the duplicate threshold, or None (the configured one)."""
        return await self.calibrations.get(tenant)

    async def clear_calibration(self, tenant: str) -> bool:
        """Forget the tenant's calibration: the configured threshold applies again."""
        return await self.calibrations.clear(tenant)

    async def fallbacks(self) -> dict[str, int]:
        """How many decisions took the rule judge's fallback, by reason: a metric."""
        return await self.memory_decisions.fallbacks()

    def indexed(self) -> tuple[int, dict[str, int]]:
        """How many runs the search holds here, and its partitions: health and metrics."""
        return len(self.index), self.index.kinds()

    async def duplicate_threshold(self, tenant: str) -> float:
        """The duplicate threshold the tenant's next admission uses: applied, calibrated or
        configured (``AdmissionService.duplicate_threshold``); what a replay compares against."""
        applied = None
        if self._tenant_settings is not None:
            applied = (await self._tenant_settings.applied(tenant, "admission.duplicate_threshold")).get(
                "admission.duplicate_threshold"
            )
        return self.service.duplicate_threshold(applied, await self.calibrations.current(tenant))

    @property
    def index(self) -> RunVectors:
        """The runs index searched: this process's, or PostgreSQL's (the engine's ``VectorBackend``)."""
        return self._chosen.chosen

    async def close(self) -> None:
        """Finish the runs index's changes in flight (they are in the database already)."""
        await self.index.close()

    async def load_index(self, progress: Callable[[int], None] | None = None) -> int:
        return await self.index.load(progress)

    async def admit(self, tenant: str, run: RunIn) -> AdmissionResult:
        return await self.service.admit(tenant, run)

    async def admit_many(self, tenant: str, runs: Sequence[RunIn]) -> list[AdmissionResult]:
        return await self.service.admit_many(tenant, runs)

    async def search(
        self,
        tenant: str,
        query: str,
        *,
        agent_id: str = "default",
        user_id: str = "",
        k: int = 5,
        min_similarity: float | None = None,
        collapse: bool = False,
    ) -> list[SearchHit]:
        """Active runs most similar to ``query``, best first, none below ``min_similarity`` (default
        ``admission.search_min_similarity``); ``collapse``: one per merge group, its canonical run."""
        floor = self.settings.search_min_similarity if min_similarity is None else min_similarity
        return await self._search.search(
            tenant, query, agent_id=agent_id, user_id=user_id, k=k, min_similarity=floor, collapse=collapse
        )

    async def run(self, tenant: str, run_id: str) -> Run:
        return await self.runs.get(tenant, run_id)

    async def delete_run(self, tenant: str, run_id: str) -> DeletedRun:
        """Delete a run: what it superseded is active again, its group re-elects (``removal``)."""
        return await self.removal.delete(tenant, run_id)

    async def undo(self, tenant: str, decision_id: str) -> UndoResult:
        """Take an admission decision back: memory exactly as it was before it (``removal``)."""
        return await self.removal.undo(tenant, decision_id)

    async def purge_superseded(self, older_than: timedelta | None = None) -> int:
        """Delete runs superseded longer ago than ``older_than`` (default: the retention setting;
        0 when it is off)."""
        days = self.settings.superseded_retention_days
        if older_than is None and days is None:
            return 0
        return await self.removal.purge_superseded(older_than if older_than is not None else timedelta(days=days or 0))

    async def list_runs(self, tenant: str, **filters: Any) -> Page[Run]:
        return await self.runs.list(tenant, **filters)

    async def decisions(
        self, tenant: str, *, decision: AdmissionDecision | None = None, **filters: Any
    ) -> Page[MemoryDecision]:
        return await self.memory_decisions.query(tenant, decision=decision, **filters)

    async def export(self, tenant: str, out: TextSink, fmt: ExportFormat) -> dict[str, int]:
        return await export_graph(self.runs, self.memory_decisions, tenant, out, fmt)

    async def calibrate(
        self,
        tenant: str,
        pairs: Sequence[LabelledPair] = (),
        *,
        objective: Objective = "accuracy",
        min_precision: float = 0.9,
        save: bool = True,
        from_feedback: bool = False,
        feedback_weight: float = 1.0,
    ) -> dict[str, Any]:
        """Fit the tenant's duplicate decision on labelled pairs (and keep it, unless ``save`` is off):
        the cosine threshold (``objective``), and the pair judge (``pair_judge``) that admissions
        use in its place. ``from_feedback`` adds the pairs the tenant's ratings of its decisions
        teach (``feedback``), each counting ``feedback_weight`` times. The judge needs at least
        ``MIN_JUDGE_PAIRS`` pairs; with fewer, the threshold decides alone. The metrics are on
        the pairs it was fitted on: measure on others with ``evaluate_pairs``."""
        if not 0 < feedback_weight <= 1000:
            raise InvalidInputError("feedback_weight", "must be above 0 and at most 1000")
        taught = await self.feedback.pairs(tenant) if from_feedback else []
        every = [*pairs, *taught]
        if not every:
            raise InvalidInputError(
                "pairs", "no labelled pairs: give a file, or rate decisions first" if from_feedback else "no pairs"
            )
        weights = [1.0] * len(pairs) + [feedback_weight] * len(taught)
        similarity = await pair_similarities(every, self.embedder)
        truth = [p.duplicate for p in every]
        threshold = calibrate_threshold(
            similarity, truth, objective=objective, min_precision=min_precision, weights=weights
        )
        fitted, low = threshold, self.settings.low_similarity
        # below the low similarity the pre-filter ADDs other tasks' runs before any judge: a duplicate
        # threshold there would only drop same-task runs as NOT (a fit on 10 pairs can land there: 0.64)
        threshold = max(threshold, low)
        metrics = pair_metrics(similarity, truth, threshold)
        details: dict[str, Any] = {
            "objective": objective,
            "embedding_model": self.embedder.model_name,
            "file_pairs": len(pairs),
            "feedback_pairs": len(taught),
        } | ({"min_precision": min_precision} if objective == "precision" else {})
        if taught:
            details["feedback_weight"] = feedback_weight
        if fitted < low:
            details["raised_to_low_similarity"] = {"fitted": round(fitted, 4), "low_similarity": low}
        if len(every) < FEW_PAIRS:
            details["warning"] = (
                f"fitted on {len(every)} pairs: the threshold may move a long way with the next few; "
                f"{FEW_PAIRS} or more are advised"
            )
        judge_metrics: dict[str, Any] | None = None
        stored = details | {"metrics": metrics}
        if len(every) >= MIN_JUDGE_PAIRS:
            texts = [(p.first, p.second) for p in every]
            judge, judged = await asyncio.to_thread(  # CPU: off the loop
                fit_and_score, texts, similarity, truth, weights=weights
            )
            judge_metrics = pair_metrics(judged, truth, judge.threshold)
            stored |= {"pair_judge": judge.to_json(), "pair_judge_metrics": judge_metrics}
        if save:
            await self.calibrations.save(tenant, threshold, stored)
        few = f"fewer than {MIN_JUDGE_PAIRS} pairs: the threshold decides"
        note = {} if judge_metrics else {"pair_judge_note": few}
        return details | {"saved": save} | metrics | {"pair_judge": judge_metrics} | note

    async def evaluate_pairs(
        self, tenant: str, pairs: Sequence[LabelledPair], *, threshold: float | None = None
    ) -> dict[str, Any]:
        """Precision, recall, F1 and accuracy of the duplicate decision at the tenant's threshold."""
        source = "argument"
        if threshold is None:
            stored = await self.calibrations.duplicate_threshold(tenant)
            threshold, source = (
                (stored, "calibrated") if stored is not None else (self.settings.duplicate_threshold, "settings")
            )
        similarity = await pair_similarities(pairs, self.embedder)
        truth = [p.duplicate for p in pairs]
        metrics = pair_metrics(similarity, truth, threshold)
        calibration = await self.calibrations.current(tenant)
        judge = None if calibration is None else calibration.pair_judge
        judged = (
            None
            if judge is None
            else pair_metrics(
                await asyncio.to_thread(judge.probabilities, [(p.first, p.second) for p in pairs], similarity),
                truth,
                judge.threshold,
            )
        )
        return (
            {"threshold_source": source, "embedding_model": self.embedder.model_name} | metrics | {"pair_judge": judged}
        )
