"""Which categories a user's feedback switched off (seed 004 §5; ORIGINS §4's nightly metrics).

A category is suppressed after ``suppress_after_sends`` sends with no engagement, or after
``suppress_after_negatives`` negative replies, counted over the last ``suppression_days``.
It comes back on probation after ``probation_days``: if the user engaged with it in the
window it is lifted, else the probation is extended.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.proactive.models import ENGAGED_OUTCOMES
from phronesis.settings import ProactiveSettings
from phronesis.storage.database import Database
from phronesis.storage.inserts import upsert
from phronesis.storage.tables import proactive_suppressions

__all__ = ["SuppressionRepository", "categories_to_suppress"]

c = proactive_suppressions.c


def categories_to_suppress(window: Sequence[tuple[str, str]], settings: ProactiveSettings) -> dict[str, str]:
    """category → reason, from (category, outcome) pairs of the suppression window."""
    sends: Counter[str] = Counter()
    engaged: Counter[str] = Counter()
    negative: Counter[str] = Counter()
    for category, outcome in window:
        if outcome == "pending":
            continue  # not decided yet: neither engagement nor its absence
        sends[category] += 1
        engaged[category] += outcome in ENGAGED_OUTCOMES
        negative[category] += outcome == "negative"
    out = {}
    for category in sends:
        if negative[category] >= settings.suppress_after_negatives:
            out[category] = "negative_feedback"
        elif sends[category] >= settings.suppress_after_sends and engaged[category] == 0:
            out[category] = "low_engagement"
    return out


class SuppressionRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def active(
        self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], now: datetime
    ) -> dict[str, frozenset[str]]:
        """Suppressed categories per user, for a whole chunk in one query."""
        query = select(c.user_id, c.category).where(c.tenant == tenant, c.user_id.in_(user_ids), c.probation_at > now)
        out: dict[str, set[str]] = {}
        for user_id, category in await conn.execute(query):
            out.setdefault(user_id, set()).add(category)
        return {k: frozenset(v) for k, v in out.items()}

    async def refresh(
        self,
        conn: AsyncConnection,
        tenant: str,
        user_id: str,
        window: Sequence[tuple[str, str, datetime]],
        now: datetime,
        settings: ProactiveSettings,
    ) -> list[str]:
        """Re-derive the user's suppressions from the window's (category, outcome, sent_at)."""
        current = {
            row.category: row
            for row in await conn.execute(
                select(proactive_suppressions).where(c.tenant == tenant, c.user_id == user_id)
            )
        }
        probation = timedelta(days=settings.probation_days)
        for category, row in current.items():
            if row.probation_at > now:
                continue
            engaged_since = any(
                cat == category and outcome in ENGAGED_OUTCOMES and sent >= row.suppressed_at
                for cat, outcome, sent in window
            )
            if engaged_since:
                await conn.execute(
                    delete(proactive_suppressions).where(
                        c.tenant == tenant, c.user_id == user_id, c.category == category
                    )
                )
            else:
                await self._put(conn, tenant, user_id, category, row.reason, row.suppressed_at, now + probation)
        for category, reason in categories_to_suppress([(cat, out) for cat, out, _ in window], settings).items():
            if category not in current:
                await self._put(conn, tenant, user_id, category, reason, now, now + probation)
        rows = await conn.execute(
            select(c.category).where(c.tenant == tenant, c.user_id == user_id, c.probation_at > now)
        )
        return sorted(rows.scalars())

    async def _put(
        self,
        conn: AsyncConnection,
        tenant: str,
        user_id: str,
        category: str,
        reason: str,
        suppressed_at: datetime,
        probation_at: datetime,
    ) -> None:
        await conn.execute(
            upsert(
                self._db.dialect,
                proactive_suppressions,
                ["tenant", "user_id", "category"],
                ["reason", "suppressed_at", "probation_at"],
            ),
            {
                "tenant": tenant,
                "user_id": user_id,
                "category": category,
                "reason": reason,
                "suppressed_at": suppressed_at,
                "probation_at": probation_at,
            },
        )
