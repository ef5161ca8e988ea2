"""One entry for the API, the CLI and the dashboard: a replay question, answered for a tenant."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from phronesis.replay.executive import replay_executive
from phronesis.replay.models import ReplayIn, ReplayReport
from phronesis.replay.routing import replay_routing

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["current_value", "run_replay"]


def current_value(engine: Engine, body: ReplayIn) -> float:
    """The setting the server runs with now: what the replay compares against."""
    if body.decision_point == "executive":
        return engine.settings.executive.heuristic_threshold
    return engine.settings.routing.cascade_threshold


async def run_replay(engine: Engine, tenant: str, body: ReplayIn) -> ReplayReport:
    since = body.since or engine.clock.now() - timedelta(days=body.days)
    replay = replay_executive if body.decision_point == "executive" else replay_routing
    return await replay(engine.database, tenant, body, current=current_value(engine, body), since=since)
