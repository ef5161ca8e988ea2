"""What a user's feedback switched off (seed 004 §5; ORIGINS §4's nightly metrics).

A *topic* is suppressed after ``suppress_after_sends`` sends with no engagement, or after
``suppress_after_negatives`` negative replies, counted over the last ``suppression_days``.
It comes back on probation after ``probation_days``: if the user engaged with it in the
window it is lifted, else the probation is extended. A user who asks for it again ("start
sending me weather again") lifts it at once (reason ``opted_in``): only sends after that count
toward suppressing it again.

A send's topics are its signal types (``type:weather_alert``); only a send no signal type stood
behind counts for its category. The original counted categories, so five ignored weather
alerts switched off the catch-all ``nudge`` and with it an urgent "School pickup… in 60 min";
here an ignored type mutes only itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.proactive.models import ENGAGED_OUTCOMES, FeedbackSummary
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.topics import topic_covers_category, topic_covers_type
from phronesis.storage.database import Database
from phronesis.storage.inserts import upsert
from phronesis.storage.tables import proactive_suppressions

__all__ = ["SuppressionRepository", "split_topics", "suppressed_topics", "topics_of", "topics_to_suppress"]

TYPE = "type:"
LIFTED = "opted_in"
"""The reason of a suppression the user lifted by asking for it again."""

c = proactive_suppressions.c


def topics_of(category: str, signal_types: Sequence[str]) -> frozenset[str]:
    """What a send (or a candidate) is about, for suppression: its signal types, else its category."""
    return frozenset(f"{TYPE}{t}" for t in signal_types) if signal_types else frozenset({category})


def split_topics(topics: Sequence[str]) -> tuple[list[str], list[str]]:
    """(categories, signal types) of stored topics, each sorted: what a summary shows."""
    categories = sorted(t for t in topics if not t.startswith(TYPE))
    return categories, sorted(t.removeprefix(TYPE) for t in topics if t.startswith(TYPE))


def suppressed_topics(summary: FeedbackSummary) -> frozenset[str]:
    """The topics a summary's suppressed categories and signal types stand for."""
    return frozenset(summary.suppressed_categories) | {f"{TYPE}{t}" for t in summary.suppressed_types}


def topics_to_suppress(window: Sequence[tuple[frozenset[str], str]], settings: ProactiveSettings) -> dict[str, str]:
    """topic → reason, from (topics, outcome) pairs of the suppression window."""
    sends: Counter[str] = Counter()
    engaged: Counter[str] = Counter()
    negative: Counter[str] = Counter()
    for topics, outcome in window:
        if outcome == "pending":
            continue  # not decided yet: neither engagement nor its absence
        for topic in topics:
            sends[topic] += 1
            engaged[topic] += outcome in ENGAGED_OUTCOMES
            negative[topic] += outcome == "negative"
    out = {}
    for topic in sends:
        if negative[topic] >= settings.suppress_after_negatives:
            out[topic] = "negative_feedback"
        elif sends[topic] >= settings.suppress_after_sends and engaged[topic] == 0:
            out[topic] = "low_engagement"
    return out


class SuppressionRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def active(
        self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], now: datetime
    ) -> dict[str, frozenset[str]]:
        """Suppressed topics per user, for a whole chunk in one query."""
        query = select(c.user_id, c.topic).where(c.tenant == tenant, c.user_id.in_(user_ids), c.probation_at > now)
        out: dict[str, set[str]] = {}
        for user_id, topic in await conn.execute(query):
            out.setdefault(user_id, set()).add(topic)
        return {k: frozenset(v) for k, v in out.items()}

    async def refresh(
        self,
        conn: AsyncConnection,
        tenant: str,
        user_id: str,
        window: Sequence[tuple[frozenset[str], str, datetime]],
        now: datetime,
        settings: ProactiveSettings,
    ) -> list[str]:
        """Re-derive the user's suppressions from the window's (topics, outcome, sent_at)."""
        current = {
            row.topic: row
            for row in await conn.execute(
                select(proactive_suppressions).where(c.tenant == tenant, c.user_id == user_id)
            )
        }
        probation = timedelta(days=settings.probation_days)
        lifted = {topic: row.suppressed_at for topic, row in current.items() if row.reason == LIFTED}
        window = [  # a topic the user asked for again counts from then
            (topics, outcome, sent)
            for topics, outcome, sent in window
            if not any(topic in lifted and sent < lifted[topic] for topic in topics)
        ]
        for topic, row in current.items():
            if row.reason == LIFTED:
                continue
            if row.probation_at > now:
                continue
            engaged_since = any(
                topic in topics and outcome in ENGAGED_OUTCOMES and sent >= row.suppressed_at
                for topics, outcome, sent in window
            )
            if engaged_since:
                await conn.execute(
                    delete(proactive_suppressions).where(c.tenant == tenant, c.user_id == user_id, c.topic == topic)
                )
            else:
                await self._put(conn, tenant, user_id, topic, row.reason, row.suppressed_at, now + probation)
        for topic, reason in topics_to_suppress([(topics, out) for topics, out, _ in window], settings).items():
            if topic not in current or topic in lifted:
                await self._put(conn, tenant, user_id, topic, reason, now, now + probation)
        rows = await conn.execute(select(c.topic).where(c.tenant == tenant, c.user_id == user_id, c.probation_at > now))
        return sorted(rows.scalars())

    async def lift(self, conn: AsyncConnection, tenant: str, user_id: str, words: Sequence[str], now: datetime) -> None:
        """The user asked for these again (every one, with no ``words``): their suppressions end now,
        and only later sends count toward suppressing them again."""
        rows = await conn.execute(
            select(c.topic).where(c.tenant == tenant, c.user_id == user_id, c.probation_at > now)
        )
        for topic in rows.scalars():
            kind = topic.removeprefix(TYPE)
            named = (
                any(topic_covers_type(w, kind) for w in words)
                if topic.startswith(TYPE)
                else any(topic_covers_category(w, kind) for w in words)
            )
            if named or not words:
                await self._put(conn, tenant, user_id, topic, LIFTED, now, now)

    async def _put(
        self,
        conn: AsyncConnection,
        tenant: str,
        user_id: str,
        topic: str,
        reason: str,
        suppressed_at: datetime,
        probation_at: datetime,
    ) -> None:
        await conn.execute(
            upsert(
                self._db.dialect,
                proactive_suppressions,
                ["tenant", "user_id", "topic"],
                ["reason", "suppressed_at", "probation_at"],
            ),
            {
                "tenant": tenant,
                "user_id": user_id,
                "topic": topic,
                "reason": reason,
                "suppressed_at": suppressed_at,
                "probation_at": probation_at,
            },
        )
