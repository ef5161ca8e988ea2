"""Undoing an admission decision (issue 23): memory exactly as it was before it, the undo on the
record, and refused while later decisions build on it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import select

from phronesis.engine import Engine
from phronesis.exceptions import ConflictError, NotFoundError
from phronesis.storage.tables import admission_runs
from phronesis.testing import FixedClock
from tests.admission.test_service import SUMMARY, T, admit
from tests.engines import EngineFactory

STATE = ("id", "status", "superseded_by", "superseded_at", "merge_group", "canonical", "usage_count", "duplicate_count")


async def memory(engine: Engine) -> list[tuple[Any, ...]]:
    """Every run's state that a decision can change."""
    columns = [admission_runs.c[name] for name in STATE]
    async with engine.database.connect() as conn:
        return [tuple(row) for row in await conn.execute(select(*columns).order_by(admission_runs.c.id))]


async def test_each_kind_of_decision_is_undone_exactly(make_engine: EngineFactory, clock: FixedClock) -> None:
    engine: Engine = await make_engine()
    a = await admit(engine, references=["A"], summary=SUMMARY)
    clock.advance(seconds=1)
    b = await admit(engine, references=["B"], summary=SUMMARY)  # MERGE: a group of two
    clock.advance(seconds=1)
    before_not = await memory(engine)
    repeat = await admit(engine, references=["B"], summary=SUMMARY)  # NOT: one more use of b
    assert (repeat.decision, repeat.target_run_id) == ("NOT", b.run_id)
    undone = await engine.admission.undo(T, repeat.decision_id)
    assert (undone.decision, undone.uncounted_use, undone.deleted_run_id) == ("NOT", b.run_id, None)
    assert await memory(engine) == before_not

    clock.advance(seconds=1)
    before_merge = await memory(engine)
    c = await admit(engine, references=["C"], summary=SUMMARY)  # MERGE into the group: c canonical
    assert c.decision == "MERGE"
    undone = await engine.admission.undo(T, c.decision_id)
    assert undone.deleted_run_id == c.run_id
    assert await memory(engine) == before_merge  # b canonical again, nothing else changed

    await engine.admission.undo(T, b.decision_id)  # the first MERGE: a alone again, in no group
    after = await memory(engine)
    assert [s[0] for s in after] == [a.run_id] and after[0][4:6] == (None, True)


async def test_a_replace_is_undone_and_the_replaced_run_is_searched_again(make_engine: EngineFactory) -> None:
    writer: Engine = await make_engine()
    reader: Engine = await make_engine()
    failed = await admit(writer, outcome="failure", summary=SUMMARY)
    before = await memory(writer)
    better = await admit(writer, summary=SUMMARY)
    assert better.decision == "REPLACE"
    undone = await writer.admission.undo(T, better.decision_id)
    assert (undone.deleted_run_id, undone.restored) == (better.run_id, [failed.run_id])
    assert await memory(writer) == before
    found = await reader.admission.search(T, "Generate schema", min_similarity=-1.0)
    assert [h.run.id for h in found] == [failed.run_id]
    record = ((await writer.admission.decisions(T, run_id=better.run_id)).items)[0]
    assert (record.undone_at is not None, record.undone_by) == (True, undone.undo_id)
    assert (await writer.decisions.get(T, undone.undo_id)).path == "undo"  # the undo is a decision too


async def test_undo_is_refused_while_later_decisions_build_on_it_and_once_only(make_engine: EngineFactory) -> None:
    engine: Engine = await make_engine()
    failed = await admit(engine, outcome="failure", summary=SUMMARY)
    partial = await admit(engine, outcome="partial", summary=SUMMARY)  # REPLACE failed
    success = await admit(engine, summary=SUMMARY)  # REPLACE partial
    assert (partial.target_run_id, success.target_run_id) == (failed.run_id, partial.run_id)
    with pytest.raises(ConflictError, match="undo it first"):
        await engine.admission.undo(T, partial.decision_id)  # success replaced the run it added
    await engine.admission.undo(T, success.decision_id)
    await engine.admission.undo(T, partial.decision_id)  # now it can
    assert [(s[0], s[1]) for s in await memory(engine)] == [(failed.run_id, "active")]
    with pytest.raises(ConflictError, match="undone already"):
        await engine.admission.undo(T, partial.decision_id)
    with pytest.raises(NotFoundError):
        await engine.admission.undo(T, "no-such-decision")


async def test_an_admission_racing_an_undo_never_builds_on_the_run_it_deletes(
    make_engine: EngineFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The undo has checked that nothing builds on the run it will delete; a second process then
    admits a run that merges into it. The undo's row locks make that admission wait, find the run
    gone and plan again (ADD); without them it merged into a run the undo then deleted."""
    undoer: Engine = await make_engine()
    other: Engine = await make_engine()
    added = await admit(undoer, references=["A"], summary=SUMMARY)
    removal = undoer.admission.removal
    refuse_later, raced = removal._refuse_later, []

    async def and_then_admit(*args: Any, **kwargs: Any) -> None:
        await refuse_later(*args, **kwargs)
        raced.append(asyncio.create_task(admit(other, references=["B"], summary=SUMMARY)))
        await asyncio.sleep(0.5)  # time to commit, unless it waits for the undo's locks

    monkeypatch.setattr(removal, "_refuse_later", and_then_admit)
    await undoer.admission.undo(T, added.decision_id)
    result = await raced[0]
    assert (result.decision, result.target_run_id) == ("ADD", None), result
    groups = {s[4] for s in await memory(undoer)}
    assert groups == {None}  # no run is left in a group with a deleted run


async def test_a_replace_whose_replaced_run_was_deleted_is_not_undone(make_engine: EngineFactory) -> None:
    """A fresh-clone trial: the undo deleted the new run and restored nothing, leaving the task
    with no run at all. What cannot be put back as it was is refused."""
    engine: Engine = await make_engine()
    failed = await admit(engine, outcome="failure", summary=SUMMARY)
    better = await admit(engine, summary=SUMMARY)
    await engine.admission.delete_run(T, failed.run_id)
    with pytest.raises(ConflictError, match="was deleted since"):
        await engine.admission.undo(T, better.decision_id)
    assert [s[0] for s in await memory(engine)] == [better.run_id]


async def test_not_decisions_are_undone_in_any_order(make_engine: EngineFactory) -> None:
    engine: Engine = await make_engine()
    stored = await admit(engine, summary=SUMMARY)
    repeats = [await admit(engine, summary=SUMMARY) for _ in range(3)]
    assert {r.decision for r in repeats} == {"NOT"}
    await engine.admission.undo(T, repeats[1].decision_id)  # the middle one first
    await engine.admission.undo(T, repeats[0].decision_id)
    assert (await engine.admission.run(T, stored.run_id)).duplicate_count == 1
