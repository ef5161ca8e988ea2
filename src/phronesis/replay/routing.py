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

from collections import Counter
from datetime import datetime

from sqlalchemy import select

from phronesis.executive.report import wilson_interval
from phronesis.replay.models import Change, Estimate, ReplayIn, ReplayReport
from phronesis.routing.route_feedback import should_have_been
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records

__all__ = ["replay_routing"]

c = decision_records.c


def _estimate(successes: int, covered: int) -> Estimate:
    return Estimate(
        successes=successes,
        covered=covered,
        rate=successes / covered if covered else None,
        interval=wilson_interval(successes, covered),
    )


async def replay_routing(
    database: Database, tenant: str, body: ReplayIn, *, current: float, since: datetime
) -> ReplayReport:
    """The cascade threshold ``body.value`` replayed on the tenant's cascade decisions since ``since``."""
    local = c.attributes["local"]
    query = select(
        c.path,
        c.action,
        should_have_been(),
        local["probability"].as_float(),
        local["abstained"].as_string(),
        local["decision"].as_string(),
        c.llm_calls,
    ).where(
        c.tenant == tenant,
        c.kind == "routing",
        c.strategy == "cascade",
        c.created_at >= since,
        c.path.in_(("local", "llm")),
        local["probability"].as_float().is_not(None),
    )
    decisions = changed = calls_logged = calls_replayed = 0
    rated = logged_right = covered = replayed_right = 0
    changes: Counter[tuple[str, str]] = Counter()
    async with database.connect() as conn:
        rows = (await conn.execute(query)).all()  # a few small columns a decision: 100,000 fit easily
    for path, action, truth, probability, abstained, local_decision, llm_calls in rows:
        decisions += 1
        asked = abstained is not None or probability < body.value
        replayed = "llm" if asked else "local"
        calls_logged += int(llm_calls or 0)
        # an unchanged decision costs what it cost; one the LLM now decides, one call
        calls_replayed += int(llm_calls or 0) if replayed == path else int(asked)
        if replayed != path:
            changed += 1
            changes[(f"{path}: {action}", f"{replayed}: {local_decision if replayed == 'local' else '?'}")] += 1
        if truth is None:  # not rated, or the rating did not say what was right
            continue
        rated += 1
        logged_right += action == truth
        if replayed == path:
            covered += 1
            replayed_right += action == truth
        elif replayed == "local":
            covered += 1
            replayed_right += local_decision == truth
    return ReplayReport(
        decision_point="routing",
        parameter="cascade_threshold",
        current=current,
        value=body.value,
        decisions=decisions,
        changed=changed,
        changes=[Change(logged=a, replayed=b, decisions=n) for (a, b), n in changes.most_common(20)],
        llm_calls_logged=calls_logged,
        llm_calls_replayed=calls_replayed,
        current_success=_estimate(logged_right, rated),
        replayed_success=_estimate(replayed_right, covered),
        coverage=covered / rated if rated else 0.0,
        ips="not estimable: the cascade is deterministic, its logs carry no propensities",
    )
