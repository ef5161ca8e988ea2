"""Retention for the proactive tables: what is done with is deleted
``proactive.retention_days`` after it was stored, by the server's hourly purge.

Done with: a signal used by a cycle or expired; a send (the ignore sweep decides every pending
one within hours); a deferred insight (used or expired); the daily counters of older days; a
user's or tenant's event (reply, opt-out, mute, pause: the state it set lives on); a cycle's slot
still held an hour after it was taken (its run died).
The purge is time-based, in one transaction, whatever the tables' size; nothing younger than
the 30 days the feedback summary reads can go (the setting's floor is 31).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, or_

from phronesis.proactive.counters import CounterRepository
from phronesis.storage.database import Database
from phronesis.storage.tables import (
    proactive_cycle_claims,
    proactive_deferred_insights,
    proactive_sends,
    proactive_signals,
    proactive_user_events,
)

__all__ = ["purge"]

_STALE_CLAIM = timedelta(hours=1)


async def purge(database: Database, now: datetime, retention: timedelta) -> dict[str, int]:
    """Delete what is done with and older than ``retention``; how many rows of each."""
    cutoff = now - retention
    signals, sends, insights = proactive_signals.c, proactive_sends.c, proactive_deferred_insights.c
    statements = {
        "signals": delete(proactive_signals).where(
            signals.created_at < cutoff, or_(signals.consumed_at.is_not(None), signals.expires_at <= now)
        ),
        "sends": delete(proactive_sends).where(sends.sent_at < cutoff, sends.outcome != "pending"),
        "insights": delete(proactive_deferred_insights).where(
            insights.created_at < cutoff, or_(insights.used.is_(True), insights.expires_at <= now)
        ),
        "counters": CounterRepository.purge_statement(cutoff),
        "user_events": delete(proactive_user_events).where(proactive_user_events.c.at < cutoff),
        # a slot held by a run that died before letting it go (a live run holds one for seconds)
        "cycle_claims": delete(proactive_cycle_claims).where(proactive_cycle_claims.c.claimed_at < now - _STALE_CLAIM),
    }
    counts: dict[str, int] = {}
    async with database.transaction() as conn:
        for name, statement in statements.items():
            counts[name] = (await conn.execute(statement)).rowcount or 0
    return counts
