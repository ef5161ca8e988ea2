"""Seed 002's decision point as one object the engine, the API and the CLI share."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.clock import Clock
from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import NotFoundError
from phronesis.llm.types import LLMProvider
from phronesis.pages import Page
from phronesis.routing import arguments
from phronesis.routing.document_jobs import DocumentJob, DocumentJobs
from phronesis.routing.documents import Document, DocumentIn, DocumentRepository
from phronesis.routing.evaluation import evaluate_router
from phronesis.routing.exemplars import Exemplar
from phronesis.routing.fitted_routers import FittedRouters, default_router_dir
from phronesis.routing.local_retriever import LocalRetriever
from phronesis.routing.local_router import LocalRouter, RouterFitOptions
from phronesis.routing.models import RouteRequest, RouteResult, ToolOutcomeIn, ToolOutcomeResult
from phronesis.routing.retrieval import Retriever
from phronesis.routing.route_feedback import RouteFeedback, RouteFeedbackIn, RouteFeedbackStore
from phronesis.routing.router_store import RouterStore
from phronesis.routing.routers import RouterResolver
from phronesis.routing.service import RoutingParts, RoutingService
from phronesis.routing.session_repository import SessionRepository
from phronesis.routing.sessions import MessageIn, NewSession, Session
from phronesis.routing.settings import RoutingSettings
from phronesis.routing.tool_outcomes import ToolOutcomes
from phronesis.routing.tools import Tool, ToolIn, ToolRepository
from phronesis.storage.database import Database
from phronesis.storage.feed_follower import SnapshotPolicy
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.vector_backend import VectorBackend
from phronesis.tuning import TenantValues

__all__ = ["RoutingModule"]


class RoutingModule:
    def __init__(
        self,
        settings: RoutingSettings,
        *,
        database: Database,
        embedder: Embedder,
        llm: LLMProvider | None,
        decisions: DecisionRecordRepository,
        clock: Clock,
        retriever: Retriever | None = None,
        document_index: PartitionedIndex | None = None,
        follow_interval_s: float = 0.0,
        snapshot: SnapshotPolicy | None = None,
        tenant_settings: TenantValues | None = None,
        vector_backend: VectorBackend | None = None,
    ) -> None:
        self.settings = settings
        self.embedder = embedder
        self.sessions = SessionRepository(database, clock)
        self.tools = ToolRepository(database, clock)
        self.documents = DocumentRepository(
            database,
            embedder,
            clock,
            index=document_index,
            follow_interval_s=follow_interval_s,
            snapshot=snapshot,
            backend=vector_backend,
        )
        self.document_jobs = DocumentJobs(database, self.documents, embedder, clock, settings)
        self.store = RouterStore(database, clock)
        self.routers = RouterResolver(
            self.store, embedder, settings.router_name, FittedRouters(settings.router_cache_dir or default_router_dir())
        )
        parts = RoutingParts(
            database=database,
            sessions=self.sessions,
            tools=self.tools,
            retriever=retriever or LocalRetriever(self.documents, embedder, settings, clock),
            routers=self.routers,
            decisions=decisions,
            embedder=embedder,
            llm=llm,
            clock=clock,
            tenant_settings=tenant_settings,
        )
        self.service = RoutingService(settings, parts)
        self.feedback = RouteFeedbackStore(decisions, clock, self.tools)
        self.tool_outcomes = ToolOutcomes(settings, parts)
        self._database = database

    async def embed_missing_documents(self) -> int:
        """Embed the passages stored without a vector (a switch to pgvector; an embedder changed)."""
        return await self.documents.embed_missing()

    async def close(self) -> None:
        """Finish the documents index's work in flight and save its snapshot (the rows are in the database)."""
        await self.documents.vectors.close()

    async def warm_up(self, vector: Vectors) -> None:
        """A turn's reads done once for no tenant, so that a fresh process's first turn costs what any
        turn does: the bundled router ready and its thread started, and each point read
        built and run once on its lane (the session, its lock, the tools, the documents' index
        following its feed). Reads only: the lock is taken in a transaction that writes nothing."""
        await self.routers.prepare()
        await self.routers.for_tenant("")
        with contextlib.suppress(NotFoundError):
            await self.sessions.get("", "")
        with contextlib.suppress(NotFoundError):  # the transaction ends with the error, having written nothing
            async with self._database.point_transaction() as tx:
                await self.sessions.lock_mode(tx, "", "")
        await self.tools.list("")
        await self.documents.search("", vector, 1)
        await asyncio.to_thread(arguments.warm_up)  # the date parser's data, for a first "Thursday at 2pm"

    async def create_session(self, tenant: str, new: NewSession) -> Session:
        return await self.sessions.create(tenant, new)

    async def session(self, tenant: str, session_id: str, *, turns: int = 20) -> Session:
        return await self.sessions.get(tenant, session_id, turns=turns)

    async def route(self, tenant: str, session_id: str, request: RouteRequest) -> RouteResult:
        return await self.service.route(tenant, session_id, request)

    async def add_message(self, tenant: str, session_id: str, message: MessageIn) -> Session:
        """A reply by the agent or a human agent, so the next turn's history is complete."""
        async with self._database.transaction() as conn:
            await self.sessions.get_for_update(conn, tenant, session_id, turns=0)
            await self.sessions.add_message(conn, tenant, session_id, message)
        return await self.session(tenant, session_id)

    async def handback(self, tenant: str, session_id: str, *, note: str | None = None) -> Session:
        """The human hands the session back: routing resumes on the next query."""
        async with self._database.transaction() as conn:
            await self.sessions.get_for_update(conn, tenant, session_id, turns=0)
            await self.sessions.set_mode(conn, tenant, session_id, "auto")
            text = "handed back to the agent" + (f": {note}" if note else "")
            await self.sessions.add_message(conn, tenant, session_id, MessageIn(role="system", text=text[:8000]))
        return await self.session(tenant, session_id)

    async def report_tool_outcome(self, tenant: str, session_id: str, outcome: ToolOutcomeIn) -> ToolOutcomeResult:
        return await self.tool_outcomes.report(tenant, session_id, outcome)

    async def put_tool(self, tenant: str, tool: ToolIn) -> Tool:
        return await self.tools.put(tenant, tool)

    async def add_documents(self, tenant: str, documents: Sequence[DocumentIn]) -> list[Document]:
        return await self.documents.add(tenant, documents)

    async def rate(
        self, tenant: str, decision_id: str, rating: RouteFeedbackIn, *, session_id: str | None = None
    ) -> RouteFeedback:
        """``feedback.rates.Rates``: a person's rating of a turn's routing (``route_feedback``)."""
        return await self.feedback.rate(tenant, decision_id, rating, session_id=session_id)

    async def taught_exemplars(self, tenant: str) -> list[Exemplar]:
        """What the ratings taught: exemplars a refit of the tenant's router learns from."""
        return await self.feedback.exemplars(tenant)

    async def save_tool(self, tenant: str, tool: ToolIn) -> tuple[Tool, bool]:
        """Register or replace a tool; True when it is new."""
        return await self.tools.save(tenant, tool)

    async def list_tools(self, tenant: str) -> list[Tool]:
        return await self.tools.list(tenant)

    async def delete_tool(self, tenant: str, name: str) -> bool:
        return bool(await self.tools.delete(tenant, [name]))

    async def put_document(self, tenant: str, document_id: str, document: DocumentIn) -> tuple[Document, bool]:
        """Store or replace one document; True when it is new (``refuse_held`` first: a job may hold it)."""
        return await self.documents.put(tenant, document_id, document)

    async def list_documents(self, tenant: str, *, limit: int = 100, offset: int = 0) -> Page[Document]:
        return await self.documents.list(tenant, limit=limit, offset=offset)

    async def delete_document(self, tenant: str, document_id: str) -> bool:
        return await self.documents.delete(tenant, document_id)

    async def refuse_held(self, tenant: str, ids: Sequence[str]) -> None:
        """Refuse a write to documents a job still holds (``DocumentJobs.refuse_held``)."""
        await self.document_jobs.refuse_held(tenant, ids)

    async def submit_documents(self, tenant: str, documents: Sequence[DocumentIn]) -> DocumentJob:
        """Documents too many for one request, stored in the background (``DocumentJobs``)."""
        return await self.document_jobs.submit(tenant, documents)

    async def document_job(self, tenant: str, job_id: str) -> DocumentJob | None:
        return await self.document_jobs.get(tenant, job_id)

    async def list_document_jobs(self, tenant: str, *, limit: int = 100, offset: int = 0) -> Page[DocumentJob]:
        return await self.document_jobs.list(tenant, limit=limit, offset=offset)

    async def cancel_document_job(self, tenant: str, job_id: str) -> DocumentJob | None:
        return await self.document_jobs.cancel(tenant, job_id)

    async def jobs_waiting(self) -> bool:
        """Whether a document job waits to run (or its runner's lease ran out)."""
        return await self.document_jobs.waiting()

    async def run_document_jobs(self) -> int:
        """Run the jobs waiting, every tenant's; the number of chunks stored."""
        return await self.document_jobs.run_pending()

    async def fit(
        self,
        tenant: str,
        exemplars: Sequence[Exemplar],
        *,
        oos: Sequence[Exemplar] = (),
        validation: Sequence[Exemplar] = (),
        options: RouterFitOptions | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> tuple[LocalRouter, int]:
        # the process table only: a tenant's exemplars are not written outside its database
        router = await FittedRouters().fit(
            exemplars, self.embedder, oos=oos, validation=validation, options=options, progress=progress
        )
        version = await self.store.save(tenant, self.settings.router_name, router)
        return router, version

    async def evaluate(self, tenant: str, examples: Sequence[Exemplar]) -> dict[str, Any]:
        router, source = await self.routers.for_tenant(tenant)
        metrics = await evaluate_router(
            router, examples, self.embedder, ambiguity_margin=self.settings.ambiguity_margin
        )
        return {"router": source} | metrics
