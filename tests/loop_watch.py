"""How long the event loop was held: a task ticks while a block runs, and the longest gap between
ticks is the longest time anything kept the loop from serving others."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass


@dataclass
class LoopWatch:
    ticks: int = 0
    longest_gap: float = 0.0


@asynccontextmanager
async def watching_the_loop(interval: float = 0.001) -> AsyncIterator[LoopWatch]:
    watch = LoopWatch()

    async def tick() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(interval)
            now = time.perf_counter()
            watch.ticks += 1
            watch.longest_gap, last = max(watch.longest_gap, now - last), now

    ticking = asyncio.create_task(tick())
    try:
        yield watch
    finally:
        ticking.cancel()
