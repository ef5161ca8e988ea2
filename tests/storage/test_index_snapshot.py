"""Index snapshots (``storage.index_snapshot``): a restart reads the saved index and the change
feed after it instead of rebuilding; a snapshot that cannot be trusted is rebuilt, and says why."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.heuristics.models import HeuristicCreate
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.storage.migrate import upgrade
from phronesis.storage.tables import heuristics
from phronesis.testing import FixedClock
from tests.engines import in_process_only

SIZE = 60


@pytest.fixture
def open_engine(tmp_path: Path, database: Database, clock: FixedClock) -> Callable[..., Any]:
    """``await open_engine(snapshots=True)``: a started engine on the shared database and data
    directory, as a restarted process would have (its indexes exact up to 20, then HNSW)."""

    async def build(*, snapshots: bool = True, dimension: int = 384) -> Engine:
        settings = Settings(
            data_dir=tmp_path,
            embeddings={"spec": f"hashing:{dimension}"},
            index={"snapshots": snapshots, "snapshot_min_size": 50, "exact_max_size": 20},
        )
        engine = Engine(settings, database=database, embedder=HashingEmbedder(dimension), llm=None, clock=clock)
        await engine.start(migrate=False)
        in_process_only(engine)  # pgvector keeps no snapshot: the database is its index
        return engine

    return build


def _conditions(start: int, stop: int) -> list[HeuristicCreate]:
    return [
        HeuristicCreate(condition_text=f"stored condition number {i} about topic {i}", action_text="act", domain="home")
        for i in range(start, stop)
    ]


async def _ids(engine: Engine, i: int) -> list[str]:
    text = f"stored condition number {i} about topic {i}"
    return [m.heuristic.id for m in await engine.heuristics.match("t1", text, source="home", min_similarity=0.99)]


async def _close(engine: Engine) -> None:
    """Close the engine's indexes (saving snapshots) but not the shared test database."""
    await engine.background.drain()
    await engine.heuristics.vectors.close()
    await engine.routing.documents.vectors.close()
    await engine.admission.index.close()


def _snapshot(tmp_path: Path, collection: str) -> Path:
    found = list((tmp_path / "index").glob(f"{collection}-*.snapshot"))
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
async def saved(open_engine: Callable[..., Any], tmp_path: Path) -> AsyncIterator[list[str]]:
    """SIZE heuristics written and an engine closed: the snapshot of the heuristics index exists."""
    engine: Engine = await open_engine()
    created = await engine.heuristics.add_many("t1", _conditions(0, SIZE))
    await engine.heuristics.delete("t1", created[0].id)  # a tombstone in an HNSW partition
    await _close(engine)
    assert _snapshot(tmp_path, "heuristics").stat().st_size > 0
    yield [h.id for h in created]


async def test_a_restart_reads_the_snapshot_and_the_changes_after_it(
    saved: list[str], open_engine: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    # another process, with no snapshot of its own, changes the table while "we" are down
    other: Engine = await open_engine(snapshots=False)
    more = await other.heuristics.add_many("t1", _conditions(SIZE, SIZE + 5))
    await other.heuristics.delete("t1", saved[1])

    with caplog.at_level(logging.INFO, logger="phronesis.storage"):
        engine: Engine = await open_engine()
    assert "heuristics index: 59 vectors from the snapshot" in caplog.text
    assert "heuristics index: snapshot not used" not in caplog.text
    assert len(engine.index) == SIZE + 5 - 2
    assert await _ids(engine, 7) == [saved[7]]
    assert await _ids(engine, SIZE + 2) == [more[2].id]
    assert await _ids(engine, 1) == [] and await _ids(engine, 0) == []


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda data: data[: len(data) // 2], "truncated"),
        (lambda data: data[:-100] + bytes(b ^ 0xFF for b in data[-100:]), "checksum does not match"),
        (lambda data: b"garbage" + data, "not a phronesis index snapshot"),
    ],
    ids=["truncated", "corrupt", "foreign"],
)
async def test_a_damaged_snapshot_is_rebuilt_and_logged(
    saved: list[str],
    open_engine: Callable[..., Any],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    damage: Callable[[bytes], bytes],
    reason: str,
) -> None:
    path = _snapshot(tmp_path, "heuristics")
    path.write_bytes(damage(path.read_bytes()))
    with caplog.at_level(logging.INFO, logger="phronesis.storage"):
        engine: Engine = await open_engine()
    assert "heuristics index: snapshot not used, rebuilding from the database" in caplog.text
    assert reason in caplog.text
    assert len(engine.index) == SIZE - 1 and await _ids(engine, 7) == [saved[7]]
    await _close(engine)  # the rebuild wrote a sound snapshot again
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="phronesis.storage"):
        await open_engine()
    assert "vectors from the snapshot" in caplog.text


async def test_a_snapshot_with_hnsw_partitions_is_rebuilt_exact_where_faiss_is_missing(
    saved: list[str],
    open_engine: Callable[..., Any],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process without the ``faiss`` extra cannot read an HNSW graph: it says so at start, rebuilds
    from the database, and its partitions stay exact (every heuristic still found)."""
    monkeypatch.setattr("phronesis.engine.faiss_installed", lambda: False)
    monkeypatch.setattr("phronesis.storage.partitioned_index.faiss_installed", lambda: False)
    with caplog.at_level(logging.INFO):
        engine: Engine = await open_engine()
    assert "HNSW is off: faiss-cpu is not installed (pip install 'phronesis[faiss]')" in caplog.text
    assert "the partition is an HNSW graph and faiss-cpu is not installed" in caplog.text
    assert engine.heuristics.vectors.kinds() == {"ExactVectorIndex": 1}
    assert len(engine.index) == SIZE - 1 and await _ids(engine, 7) == [saved[7]]


async def test_a_snapshot_of_another_model_is_rebuilt(
    saved: list[str], open_engine: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="phronesis.storage"):
        engine: Engine = await open_engine(dimension=256)
    assert "it was built with 'hashing-384' (384-d), not 'hashing-256' (256-d)" in caplog.text
    assert len(engine.index) == SIZE - 1 and await _ids(engine, 7) == [saved[7]]


async def test_a_snapshot_that_disagrees_with_the_table_is_rebuilt(
    saved: list[str], open_engine: Callable[..., Any], database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    async with database.transaction() as conn:  # rows gone without a feed entry (a hand-made delete)
        await conn.execute(delete(heuristics).where(heuristics.c.id.in_(saved[10:20])))
    with caplog.at_level(logging.INFO, logger="phronesis.storage"):
        engine: Engine = await open_engine()
    assert "it holds 59 vectors for 49 rows" in caplog.text
    assert len(engine.index) == SIZE - 11 and await _ids(engine, 12) == []


async def test_a_snapshot_of_a_recreated_database_is_rebuilt(
    saved: list[str], tmp_path: Path, clock: FixedClock, caplog: pytest.LogCaptureFixture
) -> None:
    """The same data directory, a new empty database file at the same path: the snapshot is ahead of its feed."""
    fresh = tmp_path / "phronesis.db"
    snapshot = _snapshot(tmp_path, "heuristics")
    settings = Settings(data_dir=tmp_path, embeddings={"spec": "hashing:384"}, index={"snapshot_min_size": 50})
    database = Database(settings.database_url())
    await upgrade(database)
    engine = Engine(settings, database=database, embedder=HashingEmbedder(384), llm=None, clock=clock)
    # put the old snapshot where this database's would be
    own = tmp_path / "index" / f"heuristics-{_fingerprint(database)}.snapshot"
    own.write_bytes(snapshot.read_bytes())
    with caplog.at_level(logging.INFO, logger="phronesis.storage"):
        await engine.start(migrate=False)
    assert "ahead of the database's change feed" in caplog.text
    assert len(engine.index) == 0 and fresh.is_file()
    await engine.close()


def _fingerprint(database: Database) -> str:
    from phronesis.storage.index_snapshot import database_fingerprint

    return database_fingerprint(database.identity)


async def test_the_runs_index_is_restored_from_its_snapshot(
    open_engine: Callable[..., Any], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine: Engine = await open_engine()
    runs = [
        await engine.admit_run(f"task {i}", outcome="success", summary=f"alpha{i} bravo{i} charlie{i} delta{i}")
        for i in range(SIZE)
    ]
    await _close(engine)
    assert _snapshot(tmp_path, "runs").is_file()
    with caplog.at_level(logging.INFO, logger="phronesis.storage"):
        restarted: Engine = await open_engine()
        hits = await restarted.admission.search("default", "alpha9 bravo9 charlie9 delta9", k=1)
    assert "runs index: 60 vectors from the snapshot" in caplog.text
    assert hits[0].run.id == runs[9].run_id
