"""Background loops that survive their failures.

A server runs work on a clock: the learning sweep (seed 001's timeout positives), the
decision-record purge, seed 004's proactive tick with its calendar polling. A loop that caught
only ``PhronesisError`` would end on one transient error of another kind until the process
restarted, and would log a line for each failure of a long outage.

Here a step may fail with anything but cancellation. The loop logs the first failure of a
streak with its cause (the traceback too when it is not one of phronesis's own errors),
counts the rest without logging them, says once when the step works again, and retries
sooner than its interval with capped exponential backoff and jitter, so N workers do not
hammer a database that is coming back in lockstep.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from phronesis.backoff import Backoff
from phronesis.faults import Fault

__all__ = ["PeriodicLoop"]

log = logging.getLogger("phronesis.loops")


@dataclass
class PeriodicLoop:
    """``step`` every ``interval_s``; after a failure, again after a backoff (never later than the interval)."""

    name: str
    step: Callable[[], Awaitable[object]]
    interval_s: float
    backoff: Backoff = field(default_factory=Backoff)
    on_failure: Callable[[str], None] | None = None
    """Called with the loop's name at every failure (``/metrics`` counts them)."""
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    unit: Callable[[], float] = random.random
    fault: Fault = field(init=False)

    def __post_init__(self) -> None:
        self.fault = Fault(self.name, log)

    @property
    def failures(self) -> int:
        """Failures in the current streak (0 while the step works)."""
        return self.fault.failures

    async def run(self) -> None:
        """Run until cancelled."""
        while True:
            await self.sleep(await self.once())

    async def once(self) -> float:
        """One step; how long to wait before the next."""
        try:
            await self.step()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a loop must outlive any one failure; its Fault logs it once
            self.fault.failed(error, action="retrying with backoff")
            if self.on_failure is not None:
                self.on_failure(self.name)
            return min(self.interval_s, self.backoff.delay(self.failures, self.unit()))
        self.fault.recovered()
        return self.interval_s
