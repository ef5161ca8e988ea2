"""Documents added in the background: a batch too large to embed while its caller waits.

Otherwise one request could buy unbounded work: two documents of 1,700 short sentences each take
29 s and 13.8 s of CPU, and stall the tenant's other requests meanwhile. So ``POST /v1/documents``
refuses, before any work, a batch of more passages than
``api.max_passages_per_request``; a larger one is submitted as a job (``POST /v1/documents/jobs``,
202) and polled (``GET /v1/documents/jobs/{id}``).

A job lives in the database (``document_jobs``), so any worker answers its poll and any worker may
run it. It is stored a chunk at a time (``routing.document_job_chunk_passages``), each chunk's
documents committed in one transaction with the job's progress: a worker killed mid-job leaves it
``running`` under a lease (``routing.document_job_lease_s``), and another takes it over from the
last chunk committed, storing each document exactly once. Between chunks the job rests
(``routing.document_job_busy_share``): a decision asked of the same worker waits for one chunk at
most, never for the whole batch.

Every job ends in a state its caller can read, with its reason: ``done`` (every document stored),
``failed`` (``error`` says why, and ``documents_done`` how many were stored before) or
``cancelled`` (by its caller; ``documents_done`` likewise). A tenant's jobs run oldest first.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any, Literal

import numpy as np
from sqlalchemy import Select, and_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.clock import Clock
from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import (
    ConflictError,
    InvalidInputError,
    StorageContention,
    StorageError,
    StorageUnavailable,
)
from phronesis.ids import new_id
from phronesis.pages import Page
from phronesis.routing.documents import DocumentIn, DocumentRepository, none_taken
from phronesis.routing.passages import split_passages
from phronesis.routing.settings import RoutingSettings
from phronesis.schema import Schema
from phronesis.storage.database import Database
from phronesis.storage.paging import fetch_page
from phronesis.storage.tables import document_jobs

__all__ = ["DocumentJob", "DocumentJobs", "JobStatus"]

log = logging.getLogger("phronesis.routing.document_jobs")

JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]
_OPEN = ("queued", "running")
_j = document_jobs.c


class DocumentJob(Schema):
    """A batch of documents stored in the background, and how far it got."""

    id: str
    """The job's id: poll ``GET /v1/documents/jobs/{id}``."""
    status: JobStatus
    """``queued`` (waiting for a worker), ``running``, ``done`` (every document stored),
    ``failed`` (``error`` says why) or ``cancelled``. Failed or cancelled, the first
    ``documents_done`` documents were stored: submit the rest (``document_ids[documents_done:]``)."""
    documents_total: int
    """How many documents the job holds."""
    documents_done: int
    """How many are stored and searchable (in the order given)."""
    passages_done: int
    """How many passages (each document's whole text and its sentences) those were embedded into."""
    document_ids: list[str]
    """The documents' ids, in the order given: those given, and a random one for each left out."""
    error: str | None
    """Why the job failed (None unless ``failed``)."""
    created_at: datetime
    """When the job was submitted (UTC)."""
    updated_at: datetime
    """When the job last moved: submitted, a chunk stored, ended (UTC)."""


def _job(row: Any) -> DocumentJob:
    ids = list(row.document_ids)
    return DocumentJob(
        id=row.id,
        status=row.status,
        documents_total=len(ids),
        documents_done=row.documents_done,
        passages_done=row.passages_done,
        document_ids=ids,
        error=row.error,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


_SUMMARY = [_j.id, _j.status, _j.document_ids, _j.documents_done, _j.passages_done, _j.error, _j.created_at,
            _j.updated_at]  # fmt: skip
"""A job's columns but its documents (what a poll reads: a job's documents may be megabytes)."""


class DocumentJobs:
    def __init__(
        self,
        database: Database,
        documents: DocumentRepository,
        embedder: Embedder,
        clock: Clock,
        settings: RoutingSettings,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._db = database
        self._documents = documents
        self._embedder = embedder
        self._clock = clock
        self._settings = settings
        self._sleep = sleep

    async def submit(self, tenant: str, documents: Sequence[DocumentIn]) -> DocumentJob:
        """Queue ``documents`` to be stored in the background; refused (and nothing queued) when a
        document's id is taken, by a stored document or by one of the tenant's open jobs, or when the
        tenant has ``routing.document_jobs_per_tenant`` jobs open already."""
        if not documents:
            raise InvalidInputError("documents", "at least one document is required")
        ids = [d.id or new_id() for d in documents]
        if len(set(ids)) != len(ids):
            raise ConflictError("id", "the same id appears twice in one request")
        now = self._clock.now()
        async with self._db.transaction() as conn:
            await none_taken(conn, tenant, ids)
            open_jobs = await _open_jobs(conn, tenant)
            limit = self._settings.document_jobs_per_tenant
            if len(open_jobs) >= limit:
                raise ConflictError(
                    "documents",
                    f"this tenant has {len(open_jobs)} document jobs waiting or running (at most {limit}): "
                    "poll them (GET /v1/documents/jobs) and submit this one when one has ended",
                )
            _not_held(open_jobs, ids)
            row = {
                "tenant": tenant,
                "id": new_id(),
                "status": "queued",
                "documents": [d.model_dump(mode="json") | {"id": i} for d, i in zip(documents, ids, strict=True)],
                "document_ids": ids,
                "documents_done": 0,
                "passages_done": 0,
                "error": None,
                "created_at": now,
                "updated_at": now,
                "lease_until": None,
            }
            await conn.execute(document_jobs.insert(), [row])
        log.info("document job %s queued: %d documents (tenant %s)", row["id"], len(ids), tenant)
        return _job(SimpleNamespace(**row))

    async def refuse_held(self, tenant: str, ids: Sequence[str]) -> None:
        """A ``ConflictError`` when one of ``ids`` is in one of the tenant's open jobs: a document
        stored meanwhile under its id (``POST``, ``PUT``) would fail the job at that document."""
        async with self._db.connect() as conn:
            _not_held(await _open_jobs(conn, tenant), ids)

    async def cancel(self, tenant: str, job_id: str) -> DocumentJob | None:
        """Stop a job that is waiting or running: its process stores nothing more (its next chunk
        finds the job no longer running), and what it stored stays. None when there is no such job;
        a job that has ended is answered as it is."""
        await self._end(tenant, job_id, "cancelled", "cancelled by the caller", only_open=True)
        return await self.get(tenant, job_id)

    async def get(self, tenant: str, job_id: str) -> DocumentJob | None:
        async with self._db.connect() as conn:
            row = (await conn.execute(select(*_SUMMARY).where(_j.tenant == tenant, _j.id == job_id))).one_or_none()
        return None if row is None else _job(row)

    async def list(self, tenant: str, *, limit: int = 100, offset: int = 0) -> Page[DocumentJob]:
        """The tenant's jobs, newest first."""
        query = select(*_SUMMARY).where(_j.tenant == tenant).order_by(_j.created_at.desc(), _j.id)
        async with self._db.connect() as conn:
            return await fetch_page(conn, query, _job, limit=limit, offset=offset)

    # ------------------------------------------------------------------ running

    async def run_pending(self) -> int:
        """Run waiting jobs (and those a dead worker left) until none is left; how many were run.
        What each server process's ``document-jobs`` loop calls."""
        ran = 0
        while (claimed := await self._claim()) is not None:
            await self._run(*claimed)
            ran += 1
        return ran

    async def waiting(self) -> bool:
        """Whether a job waits for a worker: queued, or left by one whose lease ran out."""
        async with self._db.connect() as conn:
            return (await conn.execute(self._candidates(self._clock.now()).limit(1))).first() is not None

    def _claimable(self, now: datetime) -> Any:
        return or_(_j.status == "queued", and_(_j.status == "running", _j.lease_until < now))

    def _candidates(self, now: datetime) -> Select[Any]:
        """Claimable jobs, oldest first."""
        return select(_j.tenant, _j.id).where(_j.status.in_(_OPEN), self._claimable(now)).order_by(_j.created_at, _j.id)

    async def _claim(self) -> tuple[str, str] | None:
        """The oldest open job nobody holds, now held by this process (a conditional update: two
        workers that read the same job cannot both take it)."""
        now = self._clock.now()
        async with self._db.connect() as conn:
            candidates = (await conn.execute(self._candidates(now).limit(8))).all()
        for tenant, job_id in candidates:
            async with self._db.transaction() as conn:
                taken = await conn.execute(
                    update(document_jobs)
                    .where(_j.tenant == tenant, _j.id == job_id, self._claimable(now))
                    .values(status="running", lease_until=self._lease(now), updated_at=now)
                )
            if taken.rowcount == 1:
                return tenant, job_id
        return None

    def _lease(self, now: datetime) -> datetime:
        return now + timedelta(seconds=self._settings.document_job_lease_s)

    async def _run(self, tenant: str, job_id: str) -> None:
        async with self._db.connect() as conn:
            row = (
                await conn.execute(
                    select(_j.documents, _j.documents_done, _j.passages_done).where(
                        _j.tenant == tenant, _j.id == job_id
                    )
                )
            ).one()
        pending = list(row.documents)
        done, passages_done = int(row.documents_done), int(row.passages_done)
        log.info("document job %s running from document %d of %d", job_id, done, len(pending))
        started = self._now()
        for chunk, texts in self._chunks(pending, done):
            try:
                vectors = await self._embed([text for own in texts for text in own], started)
                started = self._now()
                rows, passages = await self._documents.rows(tenant, chunk, [d.id or "" for d in chunk], texts, vectors)
                async with self._db.transaction() as conn:
                    if not await self._advance(conn, tenant, job_id, done, len(chunk), len(passages)):
                        log.warning("document job %s is no longer this process's (cancelled, or taken over)", job_id)
                        return
                    await self._documents.insert(conn, tenant, rows, passages)
            except (ConflictError, InvalidInputError) as error:
                await self._end(tenant, job_id, "failed", f"document {done + 1}: {error}")
                return
            except (StorageUnavailable, StorageContention):
                raise  # passing: the loop retries, and the lease lets any worker resume from the last chunk
            except StorageError as error:  # the database refused this chunk: it would refuse it again
                await self._end(tenant, job_id, "failed", f"document {done + 1}: could not be stored ({error})")
                return
            self._documents.applied(tenant, passages)
            done, passages_done = done + len(chunk), passages_done + len(passages)
            await self._rest(started)
            started = self._now()  # splitting the next chunk counts as its work
        await self._end(tenant, job_id, "done", None)
        log.info("document job %s done: %d documents, %d passages", job_id, done, passages_done)

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    async def _rest(self, started: float) -> None:
        """Rest for the work done since ``started`` × (1/share − 1): the job's share of the worker."""
        share = self._settings.document_job_busy_share
        await self._sleep((self._now() - started) * (1.0 / share - 1.0))

    async def _embed(self, texts: Sequence[str], started: float) -> Vectors:
        """The chunk's passages embedded ``document_job_chunk_passages`` at a time, resting after
        each piece: a document of many sentences is not one long call."""
        budget, parts = self._settings.document_job_chunk_passages, []
        for start in range(0, len(texts), budget):
            parts.append(await self._embedder.embed(texts[start : start + budget]))
            await self._rest(started)
            started = self._now()
        return np.concatenate(parts)

    def _chunks(
        self, pending: Sequence[dict[str, Any]], start: int
    ) -> Iterator[tuple[builtins.list[DocumentIn], builtins.list[builtins.list[str]]]]:
        """The documents from ``start`` in chunks whose passages fit ``document_job_chunk_passages``
        (at least one document a chunk), each document read and split once."""
        budget = self._settings.document_job_chunk_passages
        chunk: builtins.list[DocumentIn] = []
        texts: builtins.list[builtins.list[str]] = []
        size = 0
        for raw in pending[start:]:
            document = DocumentIn.model_validate(raw)  # stored as validated; read back the same
            own = split_passages(document.title, document.text)
            if chunk and size + len(own) > budget:
                yield chunk, texts
                chunk, texts, size = [], [], 0
            chunk.append(document)
            texts.append(own)
            size += len(own)
        if chunk:
            yield chunk, texts

    async def _advance(
        self, conn: AsyncConnection, tenant: str, job_id: str, done: int, documents: int, passages: int
    ) -> bool:
        """Move the job past a chunk in the chunk's own transaction, if this process still holds it
        where it left it (a worker that lost its lease stores nothing more)."""
        now = self._clock.now()
        moved = await conn.execute(
            update(document_jobs)
            .where(_j.tenant == tenant, _j.id == job_id, _j.status == "running", _j.documents_done == done)
            .values(
                documents_done=done + documents,
                passages_done=_j.passages_done + passages,
                updated_at=now,
                lease_until=self._lease(now),
            )
        )
        return bool(moved.rowcount == 1)

    async def _end(
        self, tenant: str, job_id: str, status: JobStatus, error: str | None, *, only_open: bool = False
    ) -> None:
        """The job's last state; its documents are dropped (the stored ones are in the knowledge base).
        ``only_open``: unless it has ended already (a cancellation)."""
        ending = update(document_jobs).where(_j.tenant == tenant, _j.id == job_id)
        if only_open:
            ending = ending.where(_j.status.in_(_OPEN))
        async with self._db.transaction() as conn:
            await conn.execute(
                ending.values(status=status, error=error, documents=[], lease_until=None, updated_at=self._clock.now())
            )
        if status == "failed":
            log.warning("document job %s failed: %s", job_id, error)


async def _open_jobs(conn: AsyncConnection, tenant: str) -> Sequence[Any]:
    """The tenant's waiting and running jobs: their ids and their documents' ids."""
    query = select(_j.id, _j.document_ids).where(_j.tenant == tenant, _j.status.in_(_OPEN))
    return (await conn.execute(query)).all()


def _not_held(open_jobs: Sequence[Any], ids: Sequence[str]) -> None:
    for other in open_jobs:
        taken = set(ids) & set(other.document_ids)
        if taken:
            raise ConflictError("id", f"document {min(taken)!r} is in job {other.id!r}, not stored yet")
