"""Replaying seed 002's cascade threshold over logged routing decisions.

In cascade mode the LLM is asked unless the local router is sure: it did not abstain and its
probability is at least ``routing.cascade_threshold`` (``routing.service``). Each cascade
record keeps the local router's prediction (``attributes.local``), so the replay knows, for
another threshold, whether the LLM would have been asked and, where it would not, what the
local router would have decided.

Outcomes come from route feedback: a decision rated correct was right; one rated incorrect
says what it should have been (``expected_decision``). A replayed decision's outcome is known
when it is the logged one (same path), or when it is the local router's and the rating says
what was right. The local router's decision is its prediction before the checks (a RETRIEVE
that retrieved nothing would have become CLARIFY): the estimate for a decision switched to the
local router is an approximation to that extent. A decision the LLM would now decide instead
is not covered: its answer was never logged. The cascade is deterministic (no logged
propensities), so inverse-propensity estimates are not possible and the report says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select

from phronesis.replay.models import ReplayIn, ReplayReport
from phronesis.replay.recorded import flag
from phronesis.replay.tally import Tally
from phronesis.routing.route_feedback import should_have_been
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records

__all__ = ["load_routing", "replay_routing", "replay_routing_rows"]

c = decision_records.c


async def replay_routing(
    database: Database, tenant: str, body: ReplayIn, *, current: float, since: datetime
) -> ReplayReport:
    """The cascade threshold ``body.value`` replayed on the tenant's cascade decisions since ``since``."""
    return replay_routing_rows(await load_routing(database, tenant, since), body.number, current=current)


async def load_routing(database: Database, tenant: str, since: datetime) -> Sequence[Any]:
    """The cascade decisions since ``since``: a few small columns each (100,000 fit easily),
    read once however many thresholds are replayed on them (``replay.tune``)."""
    local = c.attributes["local"]
    query = select(
        c.path,
        c.action,
        should_have_been(),
        local["probability"].as_float(),
        local["abstained"].as_string(),
        local["decision"].as_string(),
        c.llm_calls,
        c.attributes["llm_configured"].as_string(),
        c.id,
    ).where(
        c.tenant == tenant,
        c.kind == "routing",
        c.strategy == "cascade",
        c.created_at >= since,
        c.path.in_(("local", "llm")),
        local["probability"].as_float().is_not(None),
    )
    async with database.connect() as conn:
        return (await conn.execute(query)).all()


def replay_routing_rows(rows: Sequence[Any], value: float, *, current: float) -> ReplayReport:
    """The cascade threshold ``value`` replayed on rows from ``load_routing``."""
    tally = Tally()
    for path, action, truth, probability, abstained, local_decision, llm_calls, configured, *id_ in rows:
        # without an LLM (assumed where a record lacks it) the local router decides anyway
        asked = bool(flag(configured, absent=True)) and (abstained is not None or probability < value)
        replayed = "llm" if asked else "local"
        calls = int(llm_calls or 0)
        change = None
        if replayed != path:
            change = (f"{path}: {action}", f"{replayed}: {local_decision if replayed == 'local' else '?'}")
        # an unchanged decision costs what it cost; one the LLM now decides, one call
        replayed_calls = calls if replayed == path else int(asked)
        tally.decision(
            calls_logged=calls, calls_replayed=replayed_calls, change=change, decision_id=str(id_[0]) if id_ else None
        )
        if truth is None:  # not rated, or the rating did not say what was right
            continue
        if replayed == path:
            known: bool | None = action == truth
        elif replayed == "local":
            known = local_decision == truth
        else:
            known = None  # the LLM's answer was never logged
        tally.rating(logged_right=action == truth, replayed_right=known)
    return tally.report(
        decision_point="routing",
        parameter="cascade_threshold",
        current=current,
        value=value,
        weighting="not estimable: the cascade is deterministic, its logs carry no propensities",
    )
