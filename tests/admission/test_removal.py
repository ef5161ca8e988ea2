"""Taking runs out of memory (issue 23): deleting a run restores what it replaced and keeps its
merge group whole; retention deletes long-superseded runs; another process sees both."""

from __future__ import annotations

from datetime import timedelta

import pytest

from phronesis.engine import Engine
from phronesis.exceptions import NotFoundError
from phronesis.testing import FixedClock
from tests.admission.test_service import SUMMARY, T, admit, counts
from tests.engines import EngineFactory


async def search_ids(engine: Engine, query: str = "Generate schema") -> list[str]:
    return [hit.run.id for hit in await engine.admission.search(T, query, k=10, min_similarity=-1.0)]


async def test_deleting_a_replacement_brings_back_what_it_replaced(make_engine: EngineFactory) -> None:
    writer: Engine = await make_engine()
    reader: Engine = await make_engine()  # another process: it follows the database
    failed = await admit(writer, outcome="failure", summary=SUMMARY)
    better = await admit(writer, summary=SUMMARY)
    assert (better.decision, better.target_run_id) == ("REPLACE", failed.run_id)
    assert await search_ids(reader) == [better.run_id]

    deleted = await writer.admission.delete_run(T, better.run_id)
    assert deleted.restored == [failed.run_id]
    restored = await writer.admission.run(T, failed.run_id)
    assert (restored.status, restored.superseded_by, restored.superseded_at, restored.canonical) == (
        "active",
        None,
        None,
        True,
    )
    assert await search_ids(writer) == [failed.run_id]
    assert await search_ids(reader) == [failed.run_id]
    with pytest.raises(NotFoundError):
        await writer.admission.run(T, better.run_id)
    assert (await counts(writer))[1] == 2  # the memory decisions stay: what was decided then


async def test_a_group_chooses_its_canonical_run_again_and_one_left_is_no_group(
    make_engine: EngineFactory, clock: FixedClock
) -> None:
    engine: Engine = await make_engine()
    a = await admit(engine, references=["A"], summary=SUMMARY)
    clock.advance(seconds=1)
    b = await admit(engine, references=["B"], summary=SUMMARY)
    clock.advance(seconds=1)
    c = await admit(engine, references=["C"], summary=SUMMARY)
    assert [r.decision for r in (b, c)] == ["MERGE", "MERGE"]
    assert (await engine.admission.run(T, c.run_id)).canonical  # the newest success

    deleted = await engine.admission.delete_run(T, c.run_id)
    assert deleted.canonical == b.run_id  # the newer of the two left
    left = [await engine.admission.run(T, r.run_id) for r in (a, b)]
    assert [(r.canonical, r.merge_group is not None) for r in left] == [(False, True), (True, True)]

    await engine.admission.delete_run(T, b.run_id)
    alone = await engine.admission.run(T, a.run_id)
    assert (alone.canonical, alone.merge_group) == (True, None)
    hits = await engine.admission.search(T, "Generate schema", min_similarity=-1.0)
    assert [(h.run.id, h.group) for h in hits] == [(a.run_id, None)]


async def test_deleting_a_run_that_is_not_there_is_not_found(make_engine: EngineFactory) -> None:
    engine: Engine = await make_engine()
    with pytest.raises(NotFoundError):
        await engine.admission.delete_run(T, "no-such-run")


async def test_retention_deletes_runs_superseded_long_ago(make_engine: EngineFactory, clock: FixedClock) -> None:
    engine: Engine = await make_engine(admission={"superseded_retention_days": 30})
    old = await admit(engine, outcome="failure", summary=SUMMARY, agent_id="a1")
    await admit(engine, summary=SUMMARY, agent_id="a1")  # supersedes it now
    clock.advance(days=31)
    recent = await admit(engine, outcome="failure", summary=SUMMARY, agent_id="a2")
    await admit(engine, summary=SUMMARY, agent_id="a2")
    assert await engine.admission.purge_superseded() == 1
    with pytest.raises(NotFoundError):
        await engine.admission.run(T, old.run_id)
    assert (await engine.admission.run(T, recent.run_id)).status == "superseded"
    assert (await counts(engine))[0] == 3  # two active, one superseded recently


async def test_retention_is_off_unless_set(make_engine: EngineFactory, clock: FixedClock) -> None:
    engine: Engine = await make_engine()
    await admit(engine, outcome="failure", summary=SUMMARY)
    await admit(engine, summary=SUMMARY)
    clock.advance(days=10_000)
    assert await engine.admission.purge_superseded() == 0
    assert await engine.admission.purge_superseded(timedelta(days=1)) == 1  # asked for explicitly
