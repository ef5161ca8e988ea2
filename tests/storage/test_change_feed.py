"""The change feed (``storage.change_feed``) and the indexes that follow it (``storage.followed_index``):
two engines on one database stand for two processes; each has its own in-memory indexes."""

from __future__ import annotations

import pytest

from phronesis.admission.models import RunIn
from phronesis.engine import Engine
from phronesis.heuristics.models import HeuristicCreate, HeuristicUpdate
from phronesis.routing.documents import DocumentIn
from phronesis.storage.change_feed import ChangeCursor
from tests.engines import EngineFactory, in_process_only


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_cursor_moves_over_applied_ids_in_order() -> None:
    cursor = ChangeCursor()
    cursor.applied([1, 2, 3])
    assert cursor.watermark == 3 and not cursor.is_new(2) and cursor.is_new(4)


def test_a_missing_id_holds_the_watermark_until_it_shows_up() -> None:
    ticks = Ticks()
    cursor = ChangeCursor(gap_timeout_s=60, monotonic=ticks)
    cursor.applied([1, 3, 4])  # 2 is a transaction that has not committed yet (PostgreSQL)
    assert cursor.watermark == 1 and cursor.is_new(2) and not cursor.is_new(3)
    ticks.now = 30
    cursor.applied([2])
    assert cursor.watermark == 4


def test_every_gap_seen_together_is_given_up_together() -> None:
    """Two rolled-back ids seen missing in one read are given up after one timeout, not one per
    timeout (issue 27: the watermark crept one id per read)."""
    ticks = Ticks()
    cursor = ChangeCursor(gap_timeout_s=60, monotonic=ticks)
    cursor.applied([1, 3, 5])
    assert cursor.watermark == 1
    ticks.now = 61
    cursor.applied([])
    assert cursor.watermark == 5 and not cursor.is_new(4)


def test_without_a_timeout_every_gap_is_passed_at_once() -> None:
    """SQLite commits ids in order: a gap is a rolled-back insert, passed in the read that sees it."""
    cursor = ChangeCursor(gap_timeout_s=0)
    cursor.applied([1, 4, 9])
    assert cursor.watermark == 9


def test_a_gap_is_given_up_after_the_timeout() -> None:
    ticks = Ticks()
    cursor = ChangeCursor(gap_timeout_s=60, monotonic=ticks)
    cursor.applied([1, 3])
    ticks.now = 61
    cursor.applied([])  # 2 was rolled back: it never appears
    assert cursor.watermark == 3


def _create(condition: str, domain: str = "home") -> HeuristicCreate:
    return HeuristicCreate(condition_text=condition, action_text="act", domain=domain, confidence=0.9)


async def _ids(engine: Engine, text: str, source: str) -> list[str]:
    return [m.heuristic.id for m in await engine.heuristics.match("t1", text, source=source, min_similarity=0.9)]


async def test_another_engines_heuristic_writes_are_followed(make_engine: EngineFactory) -> None:
    writer: Engine = await make_engine()
    reader: Engine = await make_engine()
    h = await writer.heuristics.add("t1", _create("the cat is scratching the sofa"))
    assert await _ids(reader, "the cat is scratching the sofa", "home") == [h.id]

    await writer.heuristics.update("t1", h.id, HeuristicUpdate(condition_text="the dog is barking at the door"))
    assert await _ids(reader, "the dog is barking at the door", "home") == [h.id]
    assert await _ids(reader, "the cat is scratching the sofa", "home") == []

    await writer.heuristics.update("t1", h.id, HeuristicUpdate(domain="garden"))
    assert await _ids(reader, "the dog is barking at the door", "garden") == [h.id]
    assert await _ids(reader, "the dog is barking at the door", "home") == []

    await writer.heuristics.delete("t1", h.id)
    assert await _ids(reader, "the dog is barking at the door", "garden") == []
    assert len(reader.index) == 0


async def test_own_writes_are_searched_at_once_and_not_applied_again(make_engine: EngineFactory) -> None:
    engine: Engine = await make_engine()
    in_process_only(engine)
    created = await engine.heuristics.add_many("t1", [_create(f"condition number {i}") for i in range(5)])
    changes = engine.heuristics.repository.changes
    assert len(changes.own) == 5
    assert await _ids(engine, "condition number 3", "home") == [created[3].id]
    assert changes.own == set()  # read back from the feed, recognised as applied already
    assert len(engine.index) == 5


async def test_a_rolled_back_write_reaches_no_index(make_engine: EngineFactory) -> None:
    writer: Engine = await make_engine()
    reader: Engine = await make_engine()
    vectors = await writer.embedder.embed(["a write that is rolled back"])
    with pytest.raises(RuntimeError):
        async with writer.database.transaction() as conn:
            await writer.heuristics.add_many(
                "t1", [_create("a write that is rolled back")], connection=conn, vectors=vectors
            )
            raise RuntimeError("the caller's transaction fails")
    after = await writer.heuristics.add("t1", _create("a write that commits"))
    for engine in (writer, reader):
        assert await _ids(engine, "a write that is rolled back", "home") == []
        assert await _ids(engine, "a write that commits", "home") == [after.id]


async def test_another_engines_documents_are_followed(make_engine: EngineFactory) -> None:
    writer: Engine = await make_engine()
    reader: Engine = await make_engine()
    vector = (await reader.embedder.embed(["refund policy for annual plans"]))[0]
    assert await reader.routing.documents.search("t1", vector, 3) == []
    await writer.routing.add_documents("t1", [DocumentIn(id="d1", text="refund policy for annual plans")])
    hits = await reader.routing.documents.search("t1", vector, 3)
    assert [hit.document.id for hit in hits] == ["d1"] and hits[0].similarity == pytest.approx(1.0, abs=1e-5)
    assert await writer.routing.documents.delete("t1", "d1")
    assert await reader.routing.documents.search("t1", vector, 3) == []


async def test_an_index_follows_past_the_other_collections_entries(make_engine: EngineFactory) -> None:
    """Heuristics and runs share the feed's ids: each index passes the other's entries rather
    than wait on them as gaps (issue 27: the runs' cursor read every entry since it started on
    each admission, and on PostgreSQL waited a minute for each heuristic's id)."""
    writer: Engine = await make_engine()
    reader: Engine = await make_engine()
    in_process_only(reader)
    for i in range(3):
        await writer.heuristics.add("t1", _create(f"the kettle has boiled, round {i}"))
        await writer.admission.admit("t1", RunIn(agent_id="a", task=f"file the invoice number {i}", outcome="success"))
    last = await writer.heuristics.repository.changes.last_id()
    assert await _ids(reader, "the kettle has boiled, round 2", "home")  # loads and follows the heuristics
    await reader.admission.in_process.sync()
    assert reader.heuristics.vectors.watermark == last
    assert reader.admission.in_process.watermark == last
    for i in range(3, 6):  # interleaved after the load: what a follow reads, not what a load skips
        await writer.admission.admit("t1", RunIn(agent_id="a", task=f"file the invoice number {i}", outcome="success"))
        await writer.heuristics.add("t1", _create(f"the kettle has boiled, round {i}"))
    last = await writer.heuristics.repository.changes.last_id()
    assert await _ids(reader, "the kettle has boiled, round 5", "home")
    await reader.admission.in_process.sync()
    assert reader.heuristics.vectors.watermark == last
    assert reader.admission.in_process.watermark == last
