"""Decision records contract, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest

from phronesis.audit import DecisionRecordRepository, NewDecisionRecord
from phronesis.exceptions import ConflictError, NotFoundError
from phronesis.storage.database import Database
from phronesis.testing import FixedClock


def record(i: int, **overrides: object) -> NewDecisionRecord:
    data: dict[str, object] = {
        "id": f"r{i}",
        "tenant": "t1",
        "kind": "executive",
        "subject_id": f"event-{i}",
        "strategy": "heuristic_first",
        "path": "heuristic",
        "action": "do it",
        "confidence": 0.8,
        "inputs": {"event_text": "x"},
        "latency_ms": 1.5,
        "attributes": {"threshold": 0.7},
    }
    data.update(overrides)
    return NewDecisionRecord.model_validate(data)


@pytest.fixture
def repo(database: Database, clock: FixedClock) -> DecisionRecordRepository:
    return DecisionRecordRepository(database, clock=clock)


async def test_write_get_round_trip(repo: DecisionRecordRepository, clock: FixedClock) -> None:
    written = record(1, prompt="p", raw_llm_output="o", model="m", prompt_tokens=3)
    await repo.write(written)
    fetched = await repo.get("t1", "r1")
    assert fetched.model_dump(include=set(written.model_dump())) == written.model_dump()
    assert fetched.created_at == clock.now()
    with pytest.raises(NotFoundError):
        await repo.get("t2", "r1")
    with pytest.raises(ConflictError):
        await repo.write(record(1))


async def test_a_write_inside_a_caller_transaction_rolls_back_with_it(
    repo: DecisionRecordRepository, database: Database
) -> None:
    with pytest.raises(RuntimeError):
        async with database.transaction() as conn:
            await repo.write(record(1), into=conn)
            raise RuntimeError("the decision's effect failed")
    with pytest.raises(NotFoundError):
        await repo.get("t1", "r1")


async def test_query_filters_order_and_counts(repo: DecisionRecordRepository, clock: FixedClock) -> None:
    for i in range(6):
        clock.advance(seconds=1)
        await repo.write(record(i, path="heuristic" if i % 2 else "llm", strategy="a" if i < 3 else "b"))
    newest = await repo.query("t1", limit=2)
    assert [r.id for r in newest] == ["r5", "r4"]
    assert {r.id for r in await repo.query("t1", path="llm")} == {"r0", "r2", "r4"}
    assert [r.id for r in await repo.query("t1", subject_id="event-3")] == ["r3"]
    counts = {(c.strategy, c.path): c.count for c in await repo.count_by_path("t1")}
    assert counts == {("a", "heuristic"): 1, ("a", "llm"): 2, ("b", "heuristic"): 2, ("b", "llm"): 1}
    assert await repo.query("t2") == []


async def test_outcome_and_time_based_retention(repo: DecisionRecordRepository, clock: FixedClock) -> None:
    await repo.write(record(1))
    await repo.set_outcome("t1", "r1", "success")
    assert (await repo.get("t1", "r1")).outcome == "success"
    with pytest.raises(NotFoundError):
        await repo.set_outcome("t1", "missing", "success")
    clock.advance(days=31)
    await repo.write(record(2))
    assert await repo.purge(timedelta(days=30)) == 1
    assert [r.id for r in await repo.query("t1")] == ["r2"]
