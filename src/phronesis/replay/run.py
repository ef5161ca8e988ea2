"""One entry for the API, the CLI and the dashboard: a replay question, answered for a tenant.

Each decision point's replay is a loader (the logged decisions, read once) and a replay of one
value over what it loaded, so ``tune`` replays a whole grid on one read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from phronesis.exceptions import InvalidInputError
from phronesis.replay.admission import load_admission, replay_admission_rows
from phronesis.replay.admission_duplicate import load_judged, replay_duplicate_rows
from phronesis.replay.executive import load_executive, replay_executive_rows
from phronesis.replay.models import DecisionPoint, ReplayIn, ReplayReport, setting_of
from phronesis.replay.proactive import level_of, load_proactive, replay_proactive_rows
from phronesis.replay.proactive_cap import load_counted, replay_cap_rows
from phronesis.replay.routing import load_routing, replay_routing_rows
from phronesis.replay.routing_bands import load_banded, replay_bands_rows
from phronesis.replay.strategy import Strategies, current_cutoffs, load_strategies, replay_strategy_rows
from phronesis.replay.urgency import load_tiered, replay_tiered_rows
from phronesis.tenant_settings import SettingValue, out_of_order

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["REPLAYS", "Loaded", "Replay", "current_value", "load", "replay_for", "replay_loaded", "run_replay"]


Loaded = Any
"""What a replay's loader read: its own type (a list of logged decisions, mostly)."""


@dataclass(frozen=True, slots=True)
class Replay:
    """One kind of setting's replay: what it reads of the logs (once), and one value replayed on
    it. Both take the parameter (``PARAMETERS``): a trust level's names the level. The loader is
    given the engine: the strategy's replay also reads the tenant's current urgency cut-offs."""

    load: Callable[[Engine, str, datetime, str], Awaitable[Loaded]]
    replay: Callable[[Loaded, SettingValue, SettingValue, str], ReplayReport]


def _level(parameter: str) -> str:
    level = level_of(parameter)
    assert level is not None, parameter
    return level


def _number(value: SettingValue) -> float:
    """A numeric setting's value (``ReplayIn`` has made a number of it)."""
    assert not isinstance(value, str), value
    return value


def _name(value: SettingValue) -> str:
    """A choice's value (``ReplayIn`` has checked it is one of the names)."""
    assert isinstance(value, str), value
    return value


async def _strategies(engine: Engine, tenant: str, since: datetime) -> Strategies:
    return await load_strategies(engine.database, tenant, since, await current_cutoffs(engine, tenant))


_EXECUTIVE = Replay(
    lambda engine, tenant, since, _: load_executive(engine.database, tenant, since),
    lambda rows, value, current, parameter: replay_executive_rows(
        rows, _number(value), current=_number(current), parameter=parameter
    ),
)
_BANDS = Replay(
    lambda engine, tenant, since, _: load_banded(engine.database, tenant, since),
    lambda rows, value, current, parameter: replay_bands_rows(
        rows, _number(value), current=_number(current), parameter=parameter
    ),
)
_PROACTIVE = Replay(
    lambda engine, tenant, since, parameter: load_proactive(engine.database, tenant, since, level_of(parameter)),
    lambda rows, value, current, parameter: replay_proactive_rows(
        rows, _number(value), current=_number(current), parameter=parameter
    ),
)
REPLAYS: dict[str, Replay] = {
    "executive.heuristic_threshold": _EXECUTIVE,
    "executive.personality_bias": _EXECUTIVE,
    "executive.strategy": Replay(
        lambda engine, tenant, since, _: _strategies(engine, tenant, since),
        lambda rows, value, current, _: replay_strategy_rows(rows, _name(value), current=_name(current)),
    ),
    "executive.urgency": Replay(
        lambda engine, tenant, since, _: load_tiered(engine.database, tenant, since),
        lambda rows, value, current, parameter: replay_tiered_rows(
            rows, _number(value), current=_number(current), parameter=parameter
        ),
    ),
    "routing.cascade_threshold": Replay(
        lambda engine, tenant, since, _: load_routing(engine.database, tenant, since),
        lambda rows, value, current, _: replay_routing_rows(rows, _number(value), current=_number(current)),
    ),
    "routing.high_threshold": _BANDS,
    "routing.low_threshold": _BANDS,
    "admission.low_similarity": Replay(
        lambda engine, tenant, since, _: load_admission(engine.database, tenant, since),
        lambda rows, value, current, _: replay_admission_rows(rows, _number(value), current=_number(current)),
    ),
    "admission.duplicate_threshold": Replay(
        lambda engine, tenant, since, _: load_judged(engine.database, tenant, since),
        lambda rows, value, current, _: replay_duplicate_rows(rows, _number(value), current=_number(current)),
    ),
    "proactive.score_threshold": _PROACTIVE,
    "proactive.weight": _PROACTIVE,
    "proactive.daily_cap": Replay(
        lambda engine, tenant, since, parameter: load_counted(engine.database, tenant, since, _level(parameter)),
        lambda rows, value, current, parameter: replay_cap_rows(
            rows, _number(value), current=_number(current), parameter=parameter
        ),
    ),
}
"""Each kind of setting's replay, by ``{decision point}.{parameter}`` less a trust level or part."""


def replay_for(point: str, parameter: str) -> Replay:
    return REPLAYS[f"{point}.{parameter.partition('.')[0]}"]


async def current_value(engine: Engine, tenant: str, point: DecisionPoint, parameter: str) -> SettingValue:
    """The value the tenant's decisions use now (its applied one, else the configured one; for
    the duplicate threshold, a calibrated one before the configured): what the replay compares
    against."""
    setting = setting_of(point, parameter)
    if setting == "admission.duplicate_threshold":
        return await engine.admission.duplicate_threshold(tenant)
    return await engine.tenant_settings.current(tenant, setting)


async def load(engine: Engine, tenant: str, point: DecisionPoint, parameter: str, since: datetime) -> Loaded:
    return await replay_for(point, parameter).load(engine, tenant, since, parameter)


def replay_loaded(
    point: str, parameter: str, rows: Loaded, value: SettingValue, *, current: SettingValue
) -> ReplayReport:
    """``value`` replayed on what ``load`` read for ``point``."""
    return replay_for(point, parameter).replay(rows, value, current, parameter)


async def run_replay(engine: Engine, tenant: str, body: ReplayIn) -> ReplayReport:
    since = body.since or engine.clock.now() - timedelta(days=body.days)
    parameter = str(body.parameter)
    current = await current_value(engine, tenant, body.decision_point, parameter)
    setting = setting_of(body.decision_point, parameter)
    problem = (
        None
        if isinstance(body.value, str)
        else out_of_order(setting, body.value, await engine.tenant_settings.paired(tenant, setting))
    )
    if problem is not None:  # a value Apply would refuse: not one to replay either
        raise InvalidInputError("value", problem)
    rows = await load(engine, tenant, body.decision_point, parameter, since)
    return replay_loaded(body.decision_point, parameter, rows, body.value, current=current)
