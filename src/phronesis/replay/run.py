"""One entry for the API, the CLI and the dashboard: a replay question, answered for a tenant."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from phronesis.replay.executive import replay_executive
from phronesis.replay.models import DecisionPoint, ReplayIn, ReplayReport
from phronesis.replay.routing import replay_routing
from phronesis.tenant_settings import SettingName

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["SETTINGS", "current_value", "run_replay"]


SETTINGS: dict[DecisionPoint, SettingName] = {
    "executive": "executive.heuristic_threshold",
    "routing": "routing.cascade_threshold",
}
"""The tenant setting (``tenant_settings``) each decision point's replay varies."""


async def current_value(engine: Engine, tenant: str, point: DecisionPoint) -> float:
    """The value the tenant's decisions use now (its applied one, else the configured one):
    what the replay compares against."""
    return await engine.tenant_settings.value(tenant, SETTINGS[point])


async def run_replay(engine: Engine, tenant: str, body: ReplayIn) -> ReplayReport:
    since = body.since or engine.clock.now() - timedelta(days=body.days)
    replay = replay_executive if body.decision_point == "executive" else replay_routing
    current = await current_value(engine, tenant, body.decision_point)
    return await replay(engine.database, tenant, body, current=current, since=since)
