"""One entry for the API, the CLI and the dashboard: a replay question, answered for a tenant.

Each decision point's replay is a loader (the logged decisions, read once) and a replay of one
value over what it loaded, so ``tune`` replays a whole grid on one read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from phronesis.replay.admission import load_admission, replay_admission_rows
from phronesis.replay.executive import load_executive, replay_executive_rows
from phronesis.replay.models import DecisionPoint, ReplayIn, ReplayReport, setting_of
from phronesis.replay.proactive import load_proactive, replay_proactive_rows
from phronesis.replay.routing import load_routing, replay_routing_rows
from phronesis.storage.database import Database

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["Loaded", "current_value", "load", "replay_loaded", "run_replay"]


Loaded = Sequence[Any]
Loader = Callable[[Database, str, datetime, str], Awaitable[Loaded]]


async def _executive(database: Database, tenant: str, since: datetime, parameter: str) -> Loaded:
    return await load_executive(database, tenant, since)


async def _routing(database: Database, tenant: str, since: datetime, parameter: str) -> Loaded:
    return await load_routing(database, tenant, since)


async def _admission(database: Database, tenant: str, since: datetime, parameter: str) -> Loaded:
    return await load_admission(database, tenant, since)


async def _proactive(database: Database, tenant: str, since: datetime, parameter: str) -> Loaded:
    return await load_proactive(database, tenant, since, parameter.rsplit(".", 1)[1])  # score_threshold.<level>


LOADERS: dict[str, Loader] = {
    "executive": _executive,
    "routing": _routing,
    "admission": _admission,
    "proactive": _proactive,
}


async def current_value(engine: Engine, tenant: str, point: DecisionPoint, parameter: str) -> float:
    """The value the tenant's decisions use now (its applied one, else the configured one):
    what the replay compares against."""
    return await engine.tenant_settings.value(tenant, setting_of(point, parameter))


async def load(engine: Engine, tenant: str, point: DecisionPoint, parameter: str, since: datetime) -> Loaded:
    return await LOADERS[point](engine.database, tenant, since, parameter)


def replay_loaded(point: str, parameter: str, rows: Loaded, value: float, *, current: float) -> ReplayReport:
    """``value`` replayed on what ``load`` read for ``point``."""
    if point == "executive":
        return replay_executive_rows(rows, value, current=current)
    if point == "routing":
        return replay_routing_rows(rows, value, current=current)
    if point == "admission":
        return replay_admission_rows(rows, value, current=current)
    return replay_proactive_rows(rows, value, current=current, parameter=parameter)


async def run_replay(engine: Engine, tenant: str, body: ReplayIn) -> ReplayReport:
    since = body.since or engine.clock.now() - timedelta(days=body.days)
    parameter = str(body.parameter)
    current = await current_value(engine, tenant, body.decision_point, parameter)
    rows = await load(engine, tenant, body.decision_point, parameter, since)
    return replay_loaded(body.decision_point, parameter, rows, body.value, current=current)
