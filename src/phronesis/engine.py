"""The library entry point: builds the store and providers from ``Settings``, once.

Decision points do not import each other; they meet here. Every part can be injected
(database, embedder, LLM, clock) so tests and embedders of phronesis choose their own.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from datetime import timedelta
from types import TracebackType
from typing import Any, Final

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.admission.models import AdmissionResult, RunIn
from phronesis.admission.module import AdmissionModule
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.background import BackgroundTasks
from phronesis.clock import Clock, SystemClock
from phronesis.embeddings.registry import build_embedder
from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import NotFoundError, validated
from phronesis.executive.events import EventDecision, EventRequest
from phronesis.executive.feedback_handler import ExecutiveFeedback
from phronesis.executive.learning_hooks import NOT_A_FIRE, FollowUp, NotAFire
from phronesis.executive.service import ExecutiveParts, ExecutiveService
from phronesis.feedback.models import Feedback, FeedbackReceipt
from phronesis.feedback.repository import FeedbackRepository
from phronesis.feedback.scores import ScoreMapping
from phronesis.heuristics.evidence_writer import EvidencePolicy
from phronesis.heuristics.examples import ExampleRepository
from phronesis.heuristics.memory import HeuristicMemory
from phronesis.heuristics.models import ConfidenceUpdate
from phronesis.heuristics.repository import HeuristicRepository
from phronesis.learning.factory import create_learning_strategy
from phronesis.learning.feedback_handler import LearningFeedback
from phronesis.learning.flight_recorder import FlightRecorder
from phronesis.learning.lessons import LessonTeacher
from phronesis.learning.models import FireRequest, Observation, ObservedEvent
from phronesis.learning.module import LearningModule
from phronesis.learning.types import FireRecord
from phronesis.llm.registry import build_llm
from phronesis.llm.types import LLMProvider
from phronesis.proactive.models import CycleResult, TickReport
from phronesis.proactive.module import ProactiveModule
from phronesis.quotas import TenantQuotas
from phronesis.routing.models import RouteRequest, RouteResult
from phronesis.routing.module import RoutingModule
from phronesis.settings import Settings, load_settings
from phronesis.storage.database import Database
from phronesis.storage.feed_follower import SnapshotPolicy
from phronesis.storage.hnsw_index import FAISS_MISSING, HnswVectorIndex, faiss_installed
from phronesis.storage.index_snapshot import IndexSnapshots, database_fingerprint
from phronesis.storage.migrate import upgrade
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.pgvector import DIMENSION as PGVECTOR_DIMENSION
from phronesis.storage.pgvector import pgvector_state
from phronesis.storage.pgvector import require as require_pgvector
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.vector_backend import VectorBackend
from phronesis.telemetry import configure_tracing
from phronesis.tenant_settings import TenantSettings
from phronesis.tenants import DEFAULT_TENANT

__all__ = ["DEFAULT_TENANT", "Engine"]

log = logging.getLogger("phronesis.engine")


class _Unset:
    pass


_UNSET: Final = _Unset()


class Engine:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        database: Database | None = None,
        embedder: Embedder | None = None,
        llm: LLMProvider | None | _Unset = _UNSET,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        self.clock = clock or SystemClock()
        self.database = database or Database(
            self.settings.database_url(),
            echo=self.settings.database.echo,
            pool_size=self.settings.database.pool_size,
            hnsw_ef_search=self.settings.index.pgvector_ef_search,
        )
        self.llm: LLMProvider | None = build_llm(self.settings.llm) if isinstance(llm, _Unset) else llm
        self.embedder = embedder or build_embedder(self.settings.embeddings)
        self.index = self._partitioned_index()
        snapshot = self._snapshot_policy()
        learning = self.settings.learning
        self.learning_strategy = create_learning_strategy(learning)
        self.vector_backend = VectorBackend()
        """Where embeddings are searched and whether pgvector's columns are written: every store is
        built with it, and ``start`` settles it once the database is migrated (``_choose_backend``)."""
        heuristic_store = HeuristicRepository(
            self.database,
            prior_strength=self.settings.heuristics.prior_strength,
            default_confidence=self.settings.heuristics.default_confidence,
            clock=self.clock,
            evidence_model=self.learning_strategy.evidence,
            evidence_policy=EvidencePolicy(
                bounds=(learning.min_confidence, learning.max_confidence) if learning.bounds_enabled else None,
                decay_k=learning.decay_k,
            ),
            channel_prior=self.learning_strategy.channel,
            backend=self.vector_backend,
        )
        self.heuristics = HeuristicMemory(
            heuristic_store,
            self.embedder,
            self.index,
            self.settings.heuristics,
            examples=ExampleRepository(self.database, self.clock, backend=self.vector_backend),
            follow_interval_s=self.settings.index.follow_interval_s,
            snapshot=snapshot,
            backend=self.vector_backend,
        )
        otel = self.settings.otel
        self.tracing = configure_tracing(otel.enabled, otel.exporter, otel.service_name)
        self.decisions = DecisionRecordRepository(self.database, clock=self.clock, tracing=self.tracing)
        self.feedback_ledger = FeedbackRepository(self.database, clock=self.clock)
        self.tenant_settings = TenantSettings(
            self.settings, self.database, self.decisions, self.clock, llm_configured=self.llm is not None
        )
        self.quotas = TenantQuotas(self.database, self.settings.quotas)
        self.background = BackgroundTasks()
        self.learning = LearningModule(
            self.database,
            heuristic_store,
            self.learning_strategy,
            self.clock,
            max_clock_skew_s=learning.max_clock_skew_sec,
            lessons=LessonTeacher(self.heuristics, like_similarity=learning.lesson_like_similarity),
            embedder=self.embedder,
            related_similarity=learning.related_similarity,
            implicit_signals=learning.implicit_signals,
        )
        scores = ScoreMapping(
            learning.explicit_magnitude, learning.user_score_magnitudes, learning.dev_score_magnitudes
        )
        self.flight_recorder = FlightRecorder(self.learning, heuristic_store, self.database, self.clock)
        self.learning_feedback = LearningFeedback(self.learning, self.feedback_ledger, scores)
        self.executive = ExecutiveService(
            self.settings.executive,
            ExecutiveParts(
                database=self.database,
                heuristics=self.heuristics,
                heuristic_store=heuristic_store,
                decisions=self.decisions,
                embedder=self.embedder,
                llm=self.llm,
                clock=self.clock,
                background=self.background,
                record_fire=self._record_executive_fire,
                rate_fire=self._rate_executive_fire,
                observe=self._observe_follow_up,
                tenant_settings=self.tenant_settings,
            ),
            tie_epsilon=self.settings.heuristics.tie_epsilon,
        )
        self.executive_feedback = ExecutiveFeedback(self.executive, self.feedback_ledger, scores)
        self.routing = RoutingModule(
            self.settings.routing,
            database=self.database,
            embedder=self.embedder,
            llm=self.llm,
            decisions=self.decisions,
            clock=self.clock,
            document_index=self._partitioned_index(),
            follow_interval_s=self.settings.index.follow_interval_s,
            snapshot=snapshot,
            tenant_settings=self.tenant_settings,
            vector_backend=self.vector_backend,
        )
        self.admission = AdmissionModule(
            self.settings.admission,
            database=self.database,
            embedder=self.embedder,
            llm=self.llm,
            decisions=self.decisions,
            clock=self.clock,
            index=self._partitioned_index(),
            follow_interval_s=self.settings.index.follow_interval_s,
            snapshot=snapshot,
            tenant_settings=self.tenant_settings,
            vector_backend=self.vector_backend,
        )
        self.proactive = ProactiveModule(
            self.settings.proactive,
            database=self.database,
            llm=self.llm,
            decisions=self.decisions,
            clock=self.clock,
            outbound=self.settings.outbound,
            tenant_settings=self.tenant_settings,
            embedder=self.embedder,
        )
        self.started = False
        self.index_backend = self.settings.index.backend
        """Where embeddings are searched, once started: exact, hnsw or pgvector."""

    def _partitioned_index(self) -> PartitionedIndex:
        """An index per store (heuristics, runs, documents): each is rebuilt from its own table."""
        index_settings = self.settings.index
        return PartitionedIndex(
            self.embedder.dimension,
            exact_max_size=sys.maxsize if index_settings.backend == "exact" else index_settings.exact_max_size,
            hnsw_factory=(lambda dim: HnswVectorIndex(
                dim,
                connectivity=index_settings.hnsw_connectivity,
                expansion_add=index_settings.hnsw_expansion_add,
                expansion_add_online=index_settings.hnsw_expansion_add_online,
                expansion_search=index_settings.hnsw_expansion_search,
            )) if faiss_installed() else None,
        )  # fmt: skip

    def _snapshot_policy(self) -> SnapshotPolicy | None:
        """Snapshots live beside a database file or server; an in-memory database has nothing to follow."""
        index_settings = self.settings.index
        if not index_settings.snapshots or self.database.in_memory:
            return None
        snapshots = IndexSnapshots(
            self.settings.resolved_data_dir() / "index", database_fingerprint(self.database.identity)
        )
        return SnapshotPolicy(snapshots, min_size=index_settings.snapshot_min_size)

    async def start(
        self,
        *,
        migrate: bool = True,
        load_index: bool = True,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Migrate and rebuild the vector index from the database (each can be skipped).

        Commands that only read or write rows (``heuristics list``) skip the index load.
        """
        if migrate:
            await upgrade(self.database)
        await self._choose_backend()
        if load_index:
            await self.heuristics.load_index(progress)
            await self.admission.load_index(progress)
            if self.index_backend == "pgvector":  # an in-process index embeds them when it loads
                await self.routing.embed_missing_documents()
        self.started = load_index

    async def warm_up(self) -> None:
        """Pay now what a fresh process's first requests would: the sentence model loaded, the
        SQLite lanes connected, the bundled router fitted or read and its thread started
        (otherwise a first routed turn fits the router, 5-25 s). Reads and loads only; writes nothing."""
        vector = await self.embedder.embed(["warm-up"])
        await self.database.open_lanes()
        # the first read of each kind builds its statements (and an index follows its change feed):
        # done here, for no tenant, rather than in a user's first request
        await self.tenant_settings.read("", "routing.")
        await self.routing.warm_up(vector[0])

    async def _choose_backend(self) -> None:
        """pgvector's columns, where the database has them, are written by every process whichever
        backend searches (so switching to it later misses nothing); searches go there when
        ``index.backend`` is ``pgvector``, or ``auto`` and they are there."""
        backend = self.settings.index.backend
        state = await pgvector_state(self.database)
        if state is None and self.embedder.dimension != PGVECTOR_DIMENSION:
            state = f"its columns are vector({PGVECTOR_DIMENSION}); the embedder's are {self.embedder.dimension}-d"
        if backend == "pgvector":
            require_pgvector(state)
        self.index_backend = "pgvector" if state is None and backend in ("auto", "pgvector") else backend
        if self.index_backend == "auto":
            self.index_backend = "hnsw"
        if self.index_backend == "hnsw" and not faiss_installed():
            log.warning(
                "HNSW is off: %s; in-process vector partitions stay exact past %d vectors (correct, slower)",
                FAISS_MISSING,
                self.settings.index.exact_max_size,
            )
        self.vector_backend.choose(columns=state is None, in_database=self.index_backend == "pgvector")

    async def decide_event(self, text: str, *, tenant: str = DEFAULT_TENANT, **fields: Any) -> EventDecision:
        """Seed 000 ``ProcessEvent``: fire a heuristic or ask the LLM. ``fields`` are ``EventRequest``'s."""
        request = validated(EventRequest, {"text": text, **fields})
        return await self.executive.decide_event(tenant, request)

    async def route(self, session_id: str, query: str, *, tenant: str = DEFAULT_TENANT, **fields: Any) -> RouteResult:
        """Seed 002: RETRIEVE / REASON_ONLY / USE_TOOL / CLARIFY / ESCALATE for ``query`` in a session."""
        request = validated(RouteRequest, {"query": query, **fields})
        return await self.routing.route(tenant, session_id, request)

    async def admit_run(
        self, task: str, *, outcome: str, tenant: str = DEFAULT_TENANT, **fields: Any
    ) -> AdmissionResult:
        """Seed 003: ADD / NOT / REPLACE / MERGE for a finished run (``RunIn``'s fields)."""
        run = validated(RunIn, {"task": task, "outcome": outcome, **fields})
        return await self.admission.admit(tenant, run)

    async def run_proactive_cycle(self, user_id: str, *, tenant: str = DEFAULT_TENANT) -> CycleResult:
        """Seed 004: one user's cycle now: pre-filter, candidates, scoring, at most one message."""
        return await self.proactive.run_cycle(tenant, user_id)

    async def proactive_tick(self, *, tenant: str | None = None) -> TickReport:
        """Seed 004: every due user's cycle (what the scheduler runs every ``cycle_minutes``)."""
        return await self.proactive.tick(tenant)

    async def feedback(self, response_id: str, *, tenant: str = DEFAULT_TENANT, **fields: Any) -> FeedbackReceipt:
        """Explicit feedback on a decision: ``rating``, ``user_score`` or ``dev_score`` (``Feedback``'s fields)."""
        feedback = validated(Feedback, {"response_id": response_id, **fields})
        return await self.give_feedback(tenant, feedback)

    async def give_feedback(self, tenant: str, feedback: Feedback) -> FeedbackReceipt:
        """The one explicit-feedback entry point: an executive decision, or a fire recorded through learning."""
        if await self.executive.get_trace(tenant, feedback.response_id) is not None:
            return await self.executive_feedback.rate(tenant, feedback.response_id, feedback)
        # an executive decision past its trace retention is not found, even though its fire row remains
        try:
            return await self.learning_feedback.rate(tenant, feedback.response_id, feedback)
        except NotFoundError as missing:
            if (missing.kind, missing.key) != ("fire", feedback.response_id):
                raise  # something else the rating needed: said as it is
            raise NotFoundError("decision or fire", feedback.response_id) from None

    async def record_fire(self, heuristic_id: str, *, tenant: str = DEFAULT_TENANT, **fields: Any) -> FireRecord:
        """Seed 001 ``on_fire``: a heuristic fired for an event (``FireRequest``'s fields)."""
        request = validated(FireRequest, fields)
        fire = await self.learning.record_fire(tenant, heuristic_id, request)
        assert fire is not None  # not missing_ok: an unknown heuristic raised
        return fire

    async def observe(self, text: str, *, event_id: str, tenant: str = DEFAULT_TENANT, **fields: Any) -> Observation:
        """An event that may undo recent fires of its source, or leave them ignored (``ObservedEvent``'s fields)."""
        event = validated(ObservedEvent, {"text": text, "event_id": event_id, **fields})
        return await self.learning.observe(tenant, event)

    async def _record_executive_fire(
        self,
        transaction: PointTransaction,
        tenant: str,
        heuristic_id: str,
        *,
        event_id: str,
        source: str,
        response_id: str,
        event_text: str | None = None,
        event_vector: Vectors | None = None,
        probation_of: str | None = None,
    ) -> None:
        request = FireRequest(event_id=event_id, source=source, response_id=response_id, event_text=event_text)
        await self.learning.record_fire(
            tenant,
            heuristic_id,
            request,
            transaction=transaction,
            missing_ok=True,
            event_vector=event_vector,
            probation_of=probation_of,
        )

    async def _observe_follow_up(
        self,
        tenant: str,
        *,
        event_id: str,
        source: str,
        text: str,
        recurring: frozenset[str],
        reply_to: str | None = None,
    ) -> FollowUp:
        event = ObservedEvent(event_id=event_id, source=source, text=text, reply_to=reply_to)
        observation = await self.learning.observe(
            tenant, event, recurring=recurring, later=lambda work, name: self.background.spawn(work, name=name)
        )
        return FollowUp(
            undo=observation.undo,
            confirmed=observation.confirmed,
            ignored_later=observation.ignored_later,
            fires=len(observation.signals) + observation.ignored_later,
            signals=sum(1 for s in observation.signals if s.signal != "neutral"),
            undone=frozenset(s.heuristic_id for s in observation.signals) if observation.undo else frozenset(),
        )

    async def _rate_executive_fire(
        self, conn: AsyncConnection, tenant: str, response_id: str, feedback: Feedback, signed: float
    ) -> ConfidenceUpdate | None | NotAFire:
        fire = await self.learning.fire_for_response(conn, tenant, response_id)
        if fire is None:
            return NOT_A_FIRE
        return await self.learning.rate(conn, tenant, fire, feedback, signed)

    def summary(self) -> str:
        """What this process runs with, on one line (the server logs it at start-up)."""
        from phronesis import __version__
        from phronesis.settings import mask_url

        s = self.settings
        precision = _innermost(self.embedder, "precision")
        parts = {
            "database": mask_url(s.database_url()),
            "data_dir": str(s.resolved_data_dir()),
            "embedder": self.embedder.model_name + (f" ({precision})" if isinstance(precision, str) else ""),
            "llm": s.llm.spec,
            "index_backend": self.index_backend,
            "dev_mode": str(s.api.dev_mode).lower(),
            "log_level": s.log_level,
            "tracing": "off" if self.tracing is None else self.tracing.described,
        }
        return f"phronesis {__version__} ready: " + ", ".join(f"{k}={v}" for k, v in parts.items())

    async def purge_decisions(self) -> int:
        """Delete decision records older than ``audit.retention_days``."""
        return await self.decisions.purge(timedelta(days=self.settings.audit.retention_days))

    async def close(self) -> None:
        """Finish background effects (endorsements) before the database goes away; save large
        indexes that changed since their snapshot."""
        await self.background.drain()
        await self.heuristics.vectors.close()
        await self.routing.close()
        await self.proactive.close()
        await self.admission.close()
        await self.database.dispose()

    async def __aenter__(self) -> Engine:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


def _innermost(part: object, attribute: str) -> object:
    """``attribute`` of ``part`` or of what it wraps (``.inner``), the outermost that has it."""
    while part is not None:
        if hasattr(part, attribute):
            return getattr(part, attribute)
        part = getattr(part, "inner", None)
    return None
