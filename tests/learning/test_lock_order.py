"""Every writer of learning's rows takes their locks in one order: a heuristic, then its fires, then
the channel's counts (sorted). On PostgreSQL with four workers, 64 clients rating shared decisions
while the sweep closed their fires answered about 1 % of ratings with a 500: the sweep closed fires
first and then waited for their heuristics, while a rating held a heuristic and waited for its fire
(and two ratings counted the channel's rows in opposite orders). Each test below holds one lock
the way a rating does and checks the other writer is not already holding the next one: out of
order, PostgreSQL finds a deadlock and rolls one of them back.

SQLite's writer holds the whole file, so it has no order to keep; these run on PostgreSQL only.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from phronesis.heuristics.channel import count_observation
from phronesis.storage.database import Database
from phronesis.testing import FixedClock
from tests.engines import EngineFactory, add_heuristic


def _postgres_only(database: Database) -> None:
    if database.dialect != "postgresql":
        pytest.skip("SQLite's writer holds the whole file: there is no lock order to keep")


async def test_the_sweep_locks_a_heuristic_before_closing_its_fires(
    make_engine: EngineFactory, database: Database, clock: FixedClock
) -> None:
    _postgres_only(database)
    engine = await make_engine()
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.6)
    fire = await engine.record_fire(h.id, event_id="e1", source="home")
    clock.advance(seconds=31)
    async with database.transaction() as rating:  # what a rating does: the heuristic's lock, then its fire
        await engine.heuristics.repository.lock("default", [h.id], connection=rating)
        sweep = asyncio.create_task(engine.learning.sweep())
        await asyncio.sleep(0.5)  # the sweep is now waiting for the heuristic, and holds nothing of it
        await rating.execute(text("SET LOCAL lock_timeout = '5s'"))
        await engine.learning.fires.set_explicit(
            rating, fire.id, source="user_explicit", positive=True, weight=0.8, at=clock.now()
        )
    assert await sweep == 1  # and then closes the (now rated) fire


async def test_observations_count_the_channel_rows_in_one_order(database: Database) -> None:
    _postgres_only(database)
    async with database.transaction() as conn:  # the rows exist, as after the first observations
        await count_observation(conn, "t", [("implicit_timeout", True, 1.0), ("implicit_timeout", False, 1.0)])
    async with database.transaction() as first:  # a rating that moves "helped" from False to True …
        await count_observation(first, "t", [("implicit_timeout", False, 1.0)])

        async def second() -> None:  # … beside one that moves it from True to False
            async with database.transaction() as conn:
                await count_observation(conn, "t", [("implicit_timeout", True, 1.0), ("implicit_timeout", False, -1.0)])

        other = asyncio.create_task(second())
        await asyncio.sleep(0.5)
        await first.execute(text("SET LOCAL lock_timeout = '5s'"))
        await count_observation(first, "t", [("implicit_timeout", True, -1.0)])
    await other
    async with database.connect() as conn:
        rows = (await conn.execute(text("SELECT helped, count FROM learning_channel ORDER BY helped"))).all()
    assert [(bool(helped), float(count)) for helped, count in rows] == [(False, 1.0), (True, 1.0)]
