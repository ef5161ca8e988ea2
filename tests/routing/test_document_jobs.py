"""Document jobs: a batch too large for one request, stored in the background a chunk at a time,
every job ending ``done`` or ``failed`` with its reason, each document stored exactly once even
when the worker running it dies (on SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select, update

from phronesis.engine import Engine
from phronesis.exceptions import ConflictError
from phronesis.routing.document_jobs import DocumentJobs
from phronesis.routing.documents import DocumentIn
from phronesis.storage.tables import document_jobs, routing_documents, routing_passages
from phronesis.testing import FixedClock
from tests.engines import EngineFactory


def _documents(n: int, *, sentences: int = 3, prefix: str = "doc") -> list[DocumentIn]:
    return [
        DocumentIn(
            id=f"{prefix}-{i}",
            title=f"Topic {i}",
            text=" ".join(f"Fact {j} about topic {i} holds." for j in range(sentences)),
        )
        for i in range(n)
    ]


async def _jobs(make_engine: EngineFactory, **routing: object) -> tuple[Engine, DocumentJobs]:
    engine: Engine = await make_engine(routing={"document_job_chunk_passages": 8, **routing})
    jobs = DocumentJobs(
        engine.database,
        engine.routing.documents,
        engine.embedder,
        engine.clock,
        engine.settings.routing,
        sleep=_no_rest,
    )
    return engine, jobs


async def _stored(engine: Engine, tenant: str = "default") -> tuple[int, int]:
    async with engine.database.connect() as conn:
        documents = (await conn.execute(select(func.count()).where(routing_documents.c.tenant == tenant))).scalar_one()
        passages = (await conn.execute(select(func.count()).where(routing_passages.c.tenant == tenant))).scalar_one()
    return int(documents), int(passages)


async def test_a_job_stores_every_document_a_chunk_at_a_time_and_says_so(make_engine: EngineFactory) -> None:
    engine, jobs = await _jobs(make_engine)
    job = await jobs.submit("default", _documents(10))
    assert (job.status, job.documents_total, job.documents_done) == ("queued", 10, 0)
    assert job.document_ids == [f"doc-{i}" for i in range(10)]

    assert await jobs.run_pending() == 1
    ended = await jobs.get("default", job.id)
    assert ended is not None
    # each document is its whole text and three sentences: 4 passages, two documents a chunk
    assert (ended.status, ended.documents_done, ended.passages_done, ended.error) == ("done", 10, 40, None)
    assert await _stored(engine) == (10, 40)
    assert await jobs.run_pending() == 0  # nothing left to run
    hits = await engine.routing.documents.search("default", (await engine.embedder.embed(["Topic 7"]))[0], 1)
    assert hits and hits[0].document.id == "doc-7"  # searchable as soon as stored


async def test_a_job_a_dead_worker_left_resumes_after_its_lease_storing_each_document_once(
    make_engine: EngineFactory, clock: FixedClock
) -> None:
    engine, jobs = await _jobs(make_engine)
    job = await jobs.submit("default", _documents(6))
    # a worker took the job, stored the first chunk (two documents) and was killed
    claimed = await jobs._claim()
    assert claimed == ("default", job.id)
    chunk, texts = next(jobs._chunks([d.model_dump(mode="json") for d in _documents(6)], 0))
    rows, passages = await engine.routing.documents.rows("default", chunk, [d.id or "" for d in chunk], texts)
    async with engine.database.transaction() as conn:
        assert await jobs._advance(conn, "default", job.id, 0, len(chunk), len(passages))
        await engine.routing.documents.insert(conn, "default", rows, passages)

    assert await jobs.run_pending() == 0  # still held: its lease has not run out
    clock.advance(seconds=61)
    assert await jobs.run_pending() == 1
    ended = await jobs.get("default", job.id)
    assert ended is not None and (ended.status, ended.documents_done) == ("done", 6)
    assert await _stored(engine) == (6, 24)


async def test_a_worker_that_lost_its_job_stores_nothing_more(make_engine: EngineFactory, clock: FixedClock) -> None:
    engine, jobs = await _jobs(make_engine)
    job = await jobs.submit("default", _documents(2))
    await jobs._claim()
    async with engine.database.transaction() as conn:  # another worker took it over and moved it on
        await conn.execute(update(document_jobs).where(document_jobs.c.id == job.id).values(documents_done=1))
        assert not await jobs._advance(conn, "default", job.id, 0, 1, 4)


async def test_a_document_whose_id_was_taken_meanwhile_fails_the_job_saying_which_and_how_far(
    make_engine: EngineFactory,
) -> None:
    engine, jobs = await _jobs(make_engine)
    job = await jobs.submit("default", _documents(6))
    await engine.routing.documents.add("default", [DocumentIn(id="doc-4", text="Taken meanwhile.")])
    await jobs.run_pending()
    ended = await jobs.get("default", job.id)
    assert ended is not None and ended.status == "failed"
    assert ended.documents_done == 4 and ended.error is not None and "'doc-4' already exists" in ended.error
    assert await _stored(engine) == (5, 4 * 4 + 1)


async def test_a_job_is_refused_before_anything_is_queued(make_engine: EngineFactory) -> None:
    engine, jobs = await _jobs(make_engine, document_jobs_per_tenant=2)
    await engine.routing.documents.add("default", [DocumentIn(id="kept", text="Already here.")])
    with pytest.raises(ConflictError, match="'kept' already exists"):
        await jobs.submit("default", [DocumentIn(id="kept", text="Again.")])
    first = await jobs.submit("default", _documents(1, prefix="a"))
    with pytest.raises(ConflictError, match=f"in job '{first.id}'"):
        await jobs.submit("default", _documents(1, prefix="a"))
    await jobs.submit("default", _documents(1, prefix="b"))
    with pytest.raises(ConflictError, match="2 document jobs waiting or running"):
        await jobs.submit("default", _documents(1, prefix="c"))
    assert (await jobs.list("default")).total == 2
    assert (await jobs.list("other")).total == 0  # a tenant sees only its own
    assert await jobs.get("other", first.id) is None


async def test_a_job_rests_between_chunks_for_its_share_of_the_worker(make_engine: EngineFactory) -> None:
    rests: list[float] = []

    async def rest(seconds: float) -> None:
        rests.append(seconds)

    engine = await make_engine(routing={"document_job_chunk_passages": 8, "document_job_busy_share": 0.25})
    jobs = DocumentJobs(
        engine.database, engine.routing.documents, engine.embedder, engine.clock, engine.settings.routing, sleep=rest
    )
    await jobs.submit("default", _documents(6))
    await jobs.run_pending()
    # three chunks (two documents of 4 passages each), each embedded in one piece then stored:
    # a rest after every piece of work, 3× as long as it
    assert len(rests) == 6 and all(r > 0 for r in rests)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=8),
    chunk=st.integers(min_value=1, max_value=20),
    taken=st.one_of(st.none(), st.integers(min_value=0, max_value=7)),
)
async def test_every_job_ends_done_or_failed_with_its_reason_and_its_count_is_what_was_stored(
    sqlite_engine: Engine, sizes: Sequence[int], chunk: int, taken: int | None
) -> None:
    """Account for everything: whatever the documents and the chunk size, a job ends ``done`` with
    every document stored, or ``failed`` with a reason; ``documents_done`` documents and
    ``passages_done`` passages are what the knowledge base gained."""
    tenant = f"t{abs(hash((tuple(sizes), chunk, taken)))}"
    jobs = DocumentJobs(
        sqlite_engine.database,
        sqlite_engine.routing.documents,
        sqlite_engine.embedder,
        sqlite_engine.clock,
        sqlite_engine.settings.routing.model_copy(update={"document_job_chunk_passages": chunk}),
        sleep=_no_rest,
    )
    documents = [
        DocumentIn(id=f"d{i}", text=" ".join(f"Point {j} of {i} stands." for j in range(n)))
        for i, n in enumerate(sizes)
    ]
    job = await jobs.submit(tenant, documents)
    if taken is not None and taken < len(documents):
        await sqlite_engine.routing.documents.add(tenant, [DocumentIn(id=f"d{taken}", text="Taken.")])
    await jobs.run_pending()
    ended = await jobs.get(tenant, job.id)
    assert ended is not None and ended.status in ("done", "failed")
    stored_documents, stored_passages = await _stored(sqlite_engine, tenant)
    extra = int(taken is not None and taken < len(documents))
    assert stored_documents == ended.documents_done + extra
    assert stored_passages == ended.passages_done + extra * 1
    if ended.status == "done":
        assert ended.error is None and ended.documents_done == len(documents)
    else:
        assert ended.error and taken is not None and ended.documents_done <= taken


async def _no_rest(_: float) -> None:
    return None
