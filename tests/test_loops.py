"""Background loops outlive their failures: logged once with the cause, retried with backoff (issue 20)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.backoff import Backoff
from phronesis.exceptions import StorageUnavailable
from phronesis.faults import Fault
from phronesis.loops import PeriodicLoop


class Flaky:
    """A step that fails with each of ``errors`` in turn, then works."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self) -> None:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)


@given(failures=st.integers(1, 200), unit=st.floats(0, 1, exclude_max=True))
def test_a_backoff_grows_to_its_cap_and_jitters_within_bounds(failures: int, unit: float) -> None:
    backoff = Backoff(initial_s=0.5, cap_s=30.0, jitter=0.2)
    base = min(30.0, 0.5 * 2 ** (failures - 1))
    assert base * 0.8 <= backoff.delay(failures, unit) <= base
    assert backoff.delay(failures, 0.5) <= backoff.delay(failures + 1, 0.5)


async def test_a_loop_survives_any_error_and_retries_sooner_than_its_interval(
    caplog: pytest.LogCaptureFixture,
) -> None:
    step = Flaky(
        StorageUnavailable("database unavailable: refused"),
        StorageUnavailable("database unavailable: refused"),
        KeyError("boom"),
    )
    failures: list[str] = []
    loop = PeriodicLoop("sweep", step, 300.0, backoff=Backoff(1.0, 60.0, 0.0), on_failure=failures.append)
    with caplog.at_level(logging.DEBUG, "phronesis.loops"):
        waits = [await loop.once() for _ in range(5)]
    assert waits == [1.0, 2.0, 4.0, 300.0, 300.0]
    assert step.calls == 5 and failures == ["sweep"] * 3
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    # each cause once per streak; a repeat only at debug
    assert [r.getMessage() for r in errors] == [
        "sweep failed, retrying with backoff: StorageUnavailable: database unavailable: refused",
        "sweep failed, retrying with backoff: KeyError: 'boom'",
    ]
    assert errors[0].exc_info is None and errors[1].exc_info is not None  # a traceback for what is not ours
    recovered = [r.getMessage() for r in caplog.records if "recovered" in r.getMessage()]
    assert len(recovered) == 1 and recovered[0].startswith("sweep recovered after 3 failed attempts")


async def test_a_failed_step_never_waits_longer_than_the_interval() -> None:
    loop = PeriodicLoop("tick", Flaky(*[RuntimeError("x")] * 10), 5.0, backoff=Backoff(1.0, 60.0, 0.0))
    assert [await loop.once() for _ in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]


async def test_cancelling_a_loop_stops_it() -> None:
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        await asyncio.sleep(0)

    loop = PeriodicLoop("tick", Flaky(), 1.0, sleep=sleep)
    task = asyncio.create_task(loop.run())
    while len(sleeps) < 3:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_a_fault_logs_its_outage_once_and_its_end_once(caplog: pytest.LogCaptureFixture) -> None:
    fault = Fault("database", logging.getLogger("phronesis.test"))
    with caplog.at_level(logging.INFO, "phronesis.test"):
        fault.recovered()  # nothing to say while it works
        for _ in range(100):
            fault.failed(StorageUnavailable("refused"))
        assert fault.failing and fault.failures == 100
        fault.recovered()
        fault.recovered()
    assert [r.levelname for r in caplog.records] == ["ERROR", "WARNING"]
    assert "database failed: StorageUnavailable: refused" in caplog.records[0].getMessage()
    assert "recovered after 100 failed attempts" in caplog.records[1].getMessage()
    assert not fault.failing


def test_a_watched_block_is_a_failure_or_a_success(caplog: pytest.LogCaptureFixture) -> None:
    fault = Fault("embeddings", logging.getLogger("phronesis.test"))
    with caplog.at_level(logging.INFO, "phronesis.test"):
        with pytest.raises(StorageUnavailable), fault.watching(StorageUnavailable):
            raise StorageUnavailable("refused")
        assert fault.failures == 1
        with pytest.raises(KeyError), fault.watching(StorageUnavailable):  # another kind is not this part's
            raise KeyError("x")
        assert fault.failures == 1
        with fault.watching(StorageUnavailable):
            pass
    assert not fault.failing
    assert [r.levelname for r in caplog.records] == ["ERROR", "WARNING"]
