"""One contract for every backend that searches by embedding (issue 19): exact and HNSW in this
process (following the database), and pgvector inside PostgreSQL. Heuristics, documents and
runs are searched through it; the hard filters (tenant, domain, scope) stay exact."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.exceptions import ConfigurationError
from phronesis.heuristics.models import HeuristicCreate, HeuristicUpdate
from phronesis.routing.documents import DocumentIn
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.storage.migrate import upgrade
from phronesis.testing import FixedClock
from tests.conftest import POSTGRES_URL, _copy_of, _postgres_database

BACKENDS = ["exact", "hnsw", pytest.param("pgvector", marks=pytest.mark.pgvector)]


@pytest.fixture(params=BACKENDS)
async def engines(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Callable[[], Any]]:
    """``await new_engine()``: started engines on one database with the backend under test (two of
    them stand for two processes). HNSW partitions from 10 vectors up, so the graph is exercised."""
    backend = request.param
    if backend == "pgvector":
        copies = _copy_of(request.getfixturevalue("pgvector_server"), request.getfixturevalue("pgvector_template"))
    else:
        path = tmp_path / "contract.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        copies = _one(Database(f"sqlite+aiosqlite:///{path}"))
    database = await anext(copies)
    built: list[Engine] = []

    async def new_engine() -> Engine:
        settings = Settings(
            data_dir=tmp_path,
            embeddings={"spec": "hashing:384"},
            index={"backend": backend, "exact_max_size": 10},
        )
        engine = Engine(settings, database=database, embedder=HashingEmbedder(384), llm=None, clock=FixedClock())
        await engine.start(migrate=False)
        assert engine.index_backend == backend
        built.append(engine)
        return engine

    yield new_engine
    for engine in built:
        await engine.background.drain()
        await engine.admission.close()
    await copies.aclose()  # disposed, and a PostgreSQL copy dropped


def _h(condition: str, domain: str = "home") -> HeuristicCreate:
    return HeuristicCreate(condition_text=condition, action_text="act", domain=domain, confidence=0.9)


TOPICS = [f"alpha{i} bravo{i} charlie{i} delta{i} echo{i}" for i in range(40)]


async def _match(engine: Engine, tenant: str, text: str, **options: Any) -> list[tuple[str, float]]:
    found = await engine.heuristics.match(tenant, text, **({"min_similarity": 0.2} | options))
    return [(m.heuristic.id, m.similarity) for m in found]


async def test_a_condition_finds_itself_first_most_similar_first(engines: Callable[[], Any]) -> None:
    engine: Engine = await engines()
    created = await engine.heuristics.add_many("t1", [_h(t) for t in TOPICS])
    found = await _match(engine, "t1", TOPICS[17], source="home", k=5)
    assert found[0][0] == created[17].id and found[0][1] == pytest.approx(1.0, abs=1e-4)
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    assert len(await _match(engine, "t1", TOPICS[17], source="home", k=3, min_similarity=-1.0)) == 3


async def test_tenants_and_domains_never_leak(engines: Callable[[], Any]) -> None:
    engine: Engine = await engines()
    mine = await engine.heuristics.add("t1", _h(TOPICS[1]))
    theirs = await engine.heuristics.add("t2", _h(TOPICS[1]))
    garden = await engine.heuristics.add("t1", _h(TOPICS[1], domain="garden"))
    general = await engine.heuristics.add("t1", _h(TOPICS[1], domain=""))
    assert [i for i, _ in await _match(engine, "t1", TOPICS[1], source="home")] == [mine.id]
    assert [i for i, _ in await _match(engine, "t2", TOPICS[1], source="home")] == [theirs.id]
    assert {i for i, _ in await _match(engine, "t1", TOPICS[1], source="home", include_general=True)} == {
        mine.id,
        general.id,
    }
    assert {i for i, _ in await _match(engine, "t1", TOPICS[1])} == {mine.id, garden.id, general.id}


async def test_a_filter_does_not_starve_the_top_k(engines: Callable[[], Any]) -> None:
    """Many closer vectors in another domain: the filtered search still returns k of its own."""
    engine: Engine = await engines()
    await engine.heuristics.add_many("t1", [_h(TOPICS[3] + f" noise{i}", domain="garden") for i in range(30)])
    own = await engine.heuristics.add_many("t1", [_h(t) for t in TOPICS[5:10]])
    found = await _match(engine, "t1", TOPICS[3], source="home", k=5, min_similarity=-1.0)
    assert {i for i, _ in found} == {h.id for h in own}


async def test_writes_of_another_process_are_searched(engines: Callable[[], Any]) -> None:
    writer: Engine = await engines()
    reader: Engine = await engines()
    h = await writer.heuristics.add("t1", _h(TOPICS[2]))
    assert [i for i, _ in await _match(reader, "t1", TOPICS[2], source="home")] == [h.id]
    await writer.heuristics.update("t1", h.id, HeuristicUpdate(condition_text=TOPICS[4], domain="garden"))
    assert [i for i, _ in await _match(reader, "t1", TOPICS[4], source="garden")] == [h.id]
    assert await _match(reader, "t1", TOPICS[2], source="home") == []
    await writer.heuristics.delete("t1", h.id)
    assert await _match(reader, "t1", TOPICS[4]) == []


async def test_documents_are_searched_and_forgotten(engines: Callable[[], Any]) -> None:
    writer: Engine = await engines()
    reader: Engine = await engines()
    await writer.routing.add_documents("t1", [DocumentIn(id=f"d{i}", text=t) for i, t in enumerate(TOPICS[:15])])
    vector = (await reader.embedder.embed([TOPICS[6]]))[0]
    hits = await reader.routing.documents.search("t1", vector, 3)
    assert hits[0].document.id == "d6" and hits[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert await reader.routing.documents.search("t2", vector, 3) == []
    assert await writer.routing.documents.delete("t1", "d6")
    assert "d6" not in [h.document.id for h in await reader.routing.documents.search("t1", vector, 3)]


async def test_runs_are_searched_by_scope_and_superseded_ones_never(engines: Callable[[], Any]) -> None:
    writer: Engine = await engines()
    reader: Engine = await engines()
    first = await writer.admit_run("send the weekly report", outcome="failure", summary=TOPICS[8], agent_id="a1")
    await writer.admit_run("send the weekly report", outcome="success", summary=TOPICS[9], agent_id="a2")
    hits = await reader.admission.search("default", TOPICS[8], agent_id="a1", user_id="", k=3)
    assert [h.run.id for h in hits][:1] == [first.run_id]
    assert all(h.run.agent_id == "a1" for h in hits)
    better = await writer.admit_run(
        "send the weekly report", outcome="success", summary=TOPICS[8], agent_id="a1", replaces=first.run_id
    )
    assert better.decision == "REPLACE"
    hits = await reader.admission.search("default", TOPICS[8], agent_id="a1", user_id="", k=3)
    assert [h.run.id for h in hits] == [better.run_id]


@pytest.mark.parametrize("dialect", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_asking_for_pgvector_where_it_is_missing_is_one_clear_error(dialect: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, embeddings={"spec": "hashing:384"}, index={"backend": "pgvector"})
    if dialect == "sqlite":
        databases: Any = _one(Database(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"))
        reason = "the database is not PostgreSQL"
    else:
        if POSTGRES_URL is None:
            pytest.skip("PHRONESIS_TEST_DATABASE_URL is not set")
        databases = _postgres_database()  # the system PostgreSQL: no pgvector there
        reason = "PostgreSQL has no vector extension (install pgvector on the database server)"
    async for database in databases:
        await upgrade(database)
        engine = Engine(settings, database=database, embedder=HashingEmbedder(384), llm=None, clock=FixedClock())
        with pytest.raises(ConfigurationError) as raised:
            await engine.start(migrate=False)
        assert str(raised.value) == f"PHRONESIS_INDEX__BACKEND=pgvector: {reason}"


async def _one(database: Database) -> AsyncIterator[Database]:
    try:
        yield database
    finally:
        await database.dispose()
