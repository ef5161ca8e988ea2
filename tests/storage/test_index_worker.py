"""IndexWorker: changes run in order on its own thread, under the guard, and settle() waits for all of them."""

from __future__ import annotations

import logging
import threading

import pytest

from phronesis.storage.index_worker import IndexWorker


async def test_changes_run_in_submission_order_on_the_worker_thread_and_settle_waits_for_them() -> None:
    worker = IndexWorker("test-index")
    release = threading.Event()
    seen: list[tuple[int, str, bool]] = []

    def change(n: int) -> None:
        if n == 0:
            release.wait(5)  # the first change is slow: the later ones must still wait for it
        seen.append((n, threading.current_thread().name, worker.guard.locked()))

    for n in range(5):
        worker.submit(lambda n=n: change(n))  # type: ignore[misc]
    assert len(worker) == 5 and seen == []
    release.set()
    await worker.settle()
    assert [n for n, _, _ in seen] == [0, 1, 2, 3, 4]
    assert all(name.startswith("phronesis-test-index") for _, name, _ in seen)
    assert all(held for _, _, held in seen)  # each change holds the guard while it runs
    assert len(worker) == 0
    await worker.close()


async def test_the_guard_keeps_the_event_loop_out_while_a_change_runs() -> None:
    worker = IndexWorker("test-index")
    started, release = threading.Event(), threading.Event()

    def slow() -> None:
        started.set()
        release.wait(5)

    worker.submit(slow)
    assert started.wait(5)
    assert not worker.guard.acquire(blocking=False)
    release.set()
    await worker.settle()
    assert worker.guard.acquire(blocking=False)
    worker.guard.release()
    await worker.close()


async def test_a_failed_change_is_logged_and_counted_and_the_next_ones_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    worker = IndexWorker("test-index")
    done: list[str] = []

    def broken() -> None:
        raise RuntimeError("faiss ran out of memory")

    with caplog.at_level(logging.WARNING, logger="phronesis.storage"):
        worker.submit(broken)
        worker.submit(lambda: done.append("after"))
        await worker.settle()
    assert done == ["after"] and worker.failed == 1
    assert "faiss ran out of memory" in caplog.text and "index log will apply it again" in caplog.text
    await worker.close()


async def test_close_finishes_what_was_submitted() -> None:
    worker = IndexWorker("test-index")
    await worker.settle()  # nothing submitted: returns at once
    done: list[int] = []

    def slow() -> None:
        threading.Event().wait(0.05)
        done.append(1)

    worker.submit(slow)
    await worker.close()
    assert done == [1] and len(worker) == 0
