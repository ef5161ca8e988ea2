"""Replaying seed 004's daily cap of one trust level (``proactive.daily_cap.<level>``) over logged
proactive cycles.

The pre-filter stops a cycle once the user's sends today reach the cap, before any candidate or
LLM call; urgent signals do not get past it. Every cycle that reached that check keeps the
day's sends before it (``inputs.sends_today``): a cycle past the pre-filter, and one the cap or
the cooldown blocked. The cap is a matter of sequence, yet the count alone settles it:

- **a lower cap** ``c'``: a user's first ``c'`` sends of a day happen as they did, and every
  cycle after them is stopped, so a cycle is stopped exactly when its logged count was already
  ``c'`` or more. A send it stopped is gone, with its LLM calls; a cycle the cooldown blocked
  stays silent either way. Exact, but for one thing not modelled: signals a stopped cycle left
  pending could have been sent the next day;
- **a higher cap**: a cycle the cap stopped (its count at or above the logged cap, below the
  new one) would have gone on to candidates, a send and LLM calls that were never made: a change
  of unknown outcome, not covered and not counted in the calls (the LLM calls are then a lower
  bound), and any send it made would count toward the cap after it.

Cycles the pre-filter blocks are recorded one by one only with ``proactive.record_blocked``.
Without it the cycles the cap stopped are not in the logs: a lower cap is still replayed
exactly (it reads the cycles that went on), but a higher cap's changes cannot be seen, and the
report says how many such cycles the counters saw (``proactive.counters``: every level's).

Success is seed 004's engagement rate of the messages sent: the sends that remain keep their
feedback. The cap is deterministic (no propensities): only the direct estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.proactive.models import ENGAGED_OUTCOMES
from phronesis.replay.models import ReplayReport
from phronesis.replay.tally import Tally
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records, proactive_counters, proactive_sends

__all__ = ["CapLog", "Counted", "load_counted", "replay_cap_rows"]

c = decision_records.c
s = proactive_sends.c
COUNTED = ("daily_cap", "cooldown")
"""The pre-filter's blocks that come at or after the cap's check, and keep the day's count."""


@dataclass(frozen=True, slots=True)
class Counted:
    """What a replay of the cap needs of one cycle that reached its check."""

    sends_today: int
    blocked: str | None
    """The pre-filter's block (``daily_cap`` or ``cooldown``); None: the cycle went past it."""
    sent: str | None
    """The category sent, None for silence."""
    reward: float | None
    """1 engaged, 0 ignored or negative; None: silent, or no feedback yet."""
    llm_calls: int
    id: str = ""


@dataclass(frozen=True, slots=True)
class CapLog:
    rows: list[Counted]
    unrecorded: int
    """Cycles the cap stopped in the window that have no record (blocked cycles not recorded):
    the counters' count for the tenant, every level; 0 where blocks were recorded."""


async def load_counted(database: Database, tenant: str, since: datetime, level: str) -> CapLog:
    """The cycles of users at ``level`` since ``since`` that reached the cap's check and kept their
    count, with their send's feedback, read once however many caps are replayed."""
    send_id = c.attributes["send_id"].as_string()
    count = c.inputs["sends_today"].as_float()
    query = (
        select(count, c.path, c.reason, c.action, s.category, s.outcome, c.llm_calls, c.id)
        .select_from(decision_records.outerjoin(proactive_sends, and_(s.tenant == c.tenant, s.id == send_id)))
        .where(
            c.tenant == tenant,
            c.kind == "proactive",
            c.created_at >= since,
            c.inputs["trust"]["level"].as_string() == level,
            count.is_not(None),
        )
    )
    out = []
    async with database.connect() as conn:
        unrecorded = await _unrecorded(conn, tenant, since)
        for sends_today, path, reason, action, category, outcome, calls, id_ in await conn.execute(query):
            if path == "prefilter" and reason not in COUNTED:
                continue  # stopped before the cap's check: no cap changes it
            sent = str(category) if action == "sent" and category is not None else None
            known = sent is not None and outcome not in (None, "pending")
            out.append(
                Counted(
                    sends_today=int(sends_today),
                    blocked=str(reason) if path == "prefilter" else None,
                    sent=sent,
                    reward=float(outcome in ENGAGED_OUTCOMES) if known else None,
                    llm_calls=int(calls or 0),
                    id=str(id_),
                )
            )
    return CapLog(out, unrecorded)


async def _unrecorded(conn: AsyncConnection, tenant: str, since: datetime) -> int:
    """The counters' cycles stopped by the cap since ``since``'s UTC day, where no pre-filter block
    at all was recorded since (``record_blocked`` off); else 0."""
    recorded = (
        select(c.id)
        .where(c.tenant == tenant, c.kind == "proactive", c.path == "prefilter", c.created_at >= since)
        .limit(1)
    )
    if (await conn.execute(recorded)).first() is not None:
        return 0
    n = proactive_counters.c
    counted = select(func.coalesce(func.sum(n.value), 0)).where(
        n.tenant == tenant, n.name == "cycle:daily_cap", n.day >= since.astimezone(UTC).date().isoformat()
    )
    return int((await conn.execute(counted)).scalar_one())


def _label(row: Counted) -> str:
    if row.blocked is not None:
        return f"blocked: {row.blocked}"
    return f"sent: {row.sent}" if row.sent is not None else "silent"


def replay_cap_rows(log: CapLog, value: float, *, current: float, parameter: str) -> ReplayReport:
    """The daily cap ``value`` replayed on what ``load_counted`` read."""
    cap = int(value)
    tally = Tally()
    for row in log.rows:
        stopped = row.sends_today >= cap
        calls, change = row.llm_calls, None
        if row.blocked == "daily_cap" and not stopped:
            # it would have gone on: candidates, perhaps a send, never made
            change = (_label(row), "past the cap: candidates never made, ?")
            tally.replayed(right=None)
        elif row.blocked is None and stopped:
            calls, change = 0, (_label(row), "blocked: daily_cap")
        tally.decision(calls_logged=row.llm_calls, calls_replayed=calls, change=change, decision_id=row.id)
        tally.sent_logged += row.sent is not None
        if row.sent is not None and row.reward is not None:
            tally.logged(right=bool(row.reward))
        if row.sent is not None and not stopped:
            tally.sent_replayed += 1
            tally.replayed(right=None if row.reward is None else bool(row.reward))
    return tally.report(
        decision_point="proactive",
        parameter=parameter,
        current=current,
        value=value,
        weighting="not estimable: the cap is deterministic, its logs carry no propensities"
        + (
            f"; {log.unrecorded} cycles the cap stopped (every level, from the counters) have no record "
            "(proactive.record_blocked is off): what a higher cap would have let through is not seen"
            if log.unrecorded
            else ""
        ),
    )
