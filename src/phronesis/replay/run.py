"""One entry for the API and the CLI: a replay question, answered for a tenant."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from phronesis.replay.models import ReplayIn, ReplayReport
from phronesis.replay.routing import replay_routing

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["run_replay"]


async def run_replay(engine: Engine, tenant: str, body: ReplayIn) -> ReplayReport:
    since = body.since or engine.clock.now() - timedelta(days=body.days)
    current = engine.settings.routing.cascade_threshold
    return await replay_routing(engine.database, tenant, body, current=current, since=since)
