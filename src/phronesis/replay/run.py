"""One entry for the API, the CLI and the dashboard: a replay question, answered for a tenant.

Each decision point's replay is a loader (the logged decisions, read once) and a replay of one
value over what it loaded, so ``tune`` replays a whole grid on one read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from phronesis.replay.admission import load_admission, replay_admission_rows
from phronesis.replay.admission_duplicate import load_judged, replay_duplicate_rows
from phronesis.replay.executive import load_executive, replay_executive_rows
from phronesis.replay.models import DecisionPoint, ReplayIn, ReplayReport, setting_of
from phronesis.replay.proactive import level_of, load_proactive, replay_proactive_rows
from phronesis.replay.routing import load_routing, replay_routing_rows
from phronesis.storage.database import Database

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["REPLAYS", "Loaded", "Replay", "current_value", "load", "replay_loaded", "run_replay"]


Loaded = Sequence[Any]


@dataclass(frozen=True, slots=True)
class Replay:
    """A decision point's replay: what it reads of the logs (once), and one value replayed on it.
    Both take the parameter (``PARAMETERS``): proactive's names the trust level."""

    load: Callable[[Database, str, datetime, str], Awaitable[Loaded]]
    replay: Callable[[Loaded, float, float, str], ReplayReport]


REPLAYS: dict[str, Replay] = {
    "executive": Replay(
        lambda db, tenant, since, _: load_executive(db, tenant, since),
        lambda rows, value, current, parameter: replay_executive_rows(
            rows, value, current=current, parameter=parameter
        ),
    ),
    "routing": Replay(
        lambda db, tenant, since, _: load_routing(db, tenant, since),
        lambda rows, value, current, _: replay_routing_rows(rows, value, current=current),
    ),
    "admission": Replay(
        lambda db, tenant, since, parameter: (load_admission if parameter == "low_similarity" else load_judged)(
            db, tenant, since
        ),
        lambda rows, value, current, parameter: (
            replay_admission_rows if parameter == "low_similarity" else replay_duplicate_rows
        )(rows, value, current=current),
    ),
    "proactive": Replay(
        lambda db, tenant, since, parameter: load_proactive(db, tenant, since, level_of(parameter)),
        lambda rows, value, current, parameter: replay_proactive_rows(
            rows, value, current=current, parameter=parameter
        ),
    ),
}


async def current_value(engine: Engine, tenant: str, point: DecisionPoint, parameter: str) -> float:
    """The value the tenant's decisions use now (its applied one, else the configured one; for
    the duplicate threshold, a calibrated one before the configured): what the replay compares
    against."""
    setting = setting_of(point, parameter)
    if setting == "admission.duplicate_threshold":
        return await engine.admission.duplicate_threshold(tenant)
    return await engine.tenant_settings.value(tenant, setting)


async def load(engine: Engine, tenant: str, point: DecisionPoint, parameter: str, since: datetime) -> Loaded:
    return await REPLAYS[point].load(engine.database, tenant, since, parameter)


def replay_loaded(point: str, parameter: str, rows: Loaded, value: float, *, current: float) -> ReplayReport:
    """``value`` replayed on what ``load`` read for ``point``."""
    return REPLAYS[point].replay(rows, value, current, parameter)


async def run_replay(engine: Engine, tenant: str, body: ReplayIn) -> ReplayReport:
    since = body.since or engine.clock.now() - timedelta(days=body.days)
    parameter = str(body.parameter)
    current = await current_value(engine, tenant, body.decision_point, parameter)
    rows = await load(engine, tenant, body.decision_point, parameter, since)
    return replay_loaded(body.decision_point, parameter, rows, body.value, current=current)
