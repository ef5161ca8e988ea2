"""Background effects: tracked, drained, errors counted and logged, backlog bounded."""

from __future__ import annotations

import asyncio

import pytest

from phronesis.background import BackgroundTasks


async def test_drain_waits_for_every_task_and_failures_are_counted(caplog: pytest.LogCaptureFixture) -> None:
    tasks = BackgroundTasks()
    done: list[int] = []

    async def work(i: int) -> None:
        await asyncio.sleep(0.01)
        done.append(i)

    async def broken() -> None:
        raise RuntimeError("boom")

    for i in range(3):
        tasks.spawn(work(i), name=f"work-{i}")
    tasks.spawn(broken(), name="broken")
    await tasks.drain()

    assert sorted(done) == [0, 1, 2] and len(tasks) == 0
    assert tasks.failed == 1 and "broken" in caplog.text


async def test_a_full_backlog_sheds_load() -> None:
    tasks = BackgroundTasks(max_pending=1)
    assert tasks.spawn(asyncio.sleep(0.01), name="a")
    assert not tasks.spawn(asyncio.sleep(0.01), name="b")
    assert tasks.dropped == 1
    await tasks.drain()
