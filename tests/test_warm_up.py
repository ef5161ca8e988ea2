"""A server's warm-up (issue 45) pays a first request's costs and writes nothing: every table is as
empty after it as before, on each backend."""

from __future__ import annotations

from sqlalchemy import func, select

from phronesis.engine import Engine
from phronesis.storage.tables import metadata
from tests.engines import EngineFactory


async def test_warming_up_writes_nothing(make_engine: EngineFactory) -> None:
    engine: Engine = await make_engine()
    await engine.warm_up()
    await engine.warm_up()  # twice: a restarted worker warms up again
    async with engine.database.connect() as conn:
        counts = {
            table.name: await conn.scalar(select(func.count()).select_from(table)) for table in metadata.sorted_tables
        }
    assert counts and set(counts.values()) == {0}, {name: n for name, n in counts.items() if n}
