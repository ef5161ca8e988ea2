"""Seed 004 §5, the feedback loop: pending → engaged / ignored / negative / button_click.

- a reply within ``engagement_window`` (60 min) of a send → engaged, with its latency;
- a pressed button on a button prompt → button_click;
- a reply that pushes back ("not helpful") or asks to stop ("stop", "unsubscribe", "no more
  weather please") → negative, and for the latter an opt-out or a mute of what it named
  (``replies``); a reply asking to start again ("don't stop reminding me about deadlines") →
  engaged, and an opt-in;
- a later reply, before the timeout → engaged too, with its latency (a late reply);
- no reply ``ignore_timeout`` (180 min) after a send → ignored (a sweep each tick).

Only sends made before the reply are touched, the newest first (the original credited
whatever was pending). After feedback changes, the user's suppressed categories and the
signal types they ignore are re-derived from the window.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.proactive.counters import CounterRepository
from phronesis.proactive.models import CATEGORIES, ENGAGED_OUTCOMES, FeedbackOutcome, FeedbackSummary, OptOut
from phronesis.proactive.quiet_hours import local_day_start
from phronesis.proactive.replies import STOPPING, Reading, ReplyIntent, read_reply
from phronesis.proactive.sends import SendRepository
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.suppression import SuppressionRepository, split_topics, topics_of
from phronesis.proactive.topics import known_topic, topic_covers_category, topic_covers_type
from phronesis.proactive.users import UserRepository

__all__ = ["FeedbackLoop", "ReplyEffect", "summarise"]


LEARN_IGNORED_AFTER = 3
"""A signal type behind this many decided sends, none engaged, counts as one the user ignores."""


@dataclass(frozen=True, slots=True)
class Answered:
    """The message a reply answers: what "these" and a word from it point at."""

    category: str
    types: list[str]
    text: str = ""


@dataclass(frozen=True, slots=True)
class ReplyEffect:
    labelled: list[str]
    """The sends this reply labelled."""
    intent: ReplyIntent
    opted_out: OptOut | None
    """What the reply switched off (or muted), if it asked to stop."""
    opted_in: OptOut | None = None
    """What the reply switched back on, if it asked to start again."""


def summarise(
    window: list[tuple[str, str, float | None, list[str]]], suppressed: list[str], *, late_after: float = float("inf")
) -> FeedbackSummary:
    """Seed 004 §5's ``get_feedback_summary``: rates over everything sent (8 of 12 → 0.67).
    ``late_after``: seconds (the engagement window) after which an engaged reply counts as late."""
    outcomes = Counter(outcome for _, outcome, _, _ in window)
    total = len(window)
    engaged = sum(outcomes[o] for o in ENGAGED_OUTCOMES)
    by_category: dict[str, list[int]] = {}
    for category, outcome, _, _ in window:
        counts = by_category.setdefault(category, [0, 0])
        counts[0] += 1
        counts[1] += outcome in ENGAGED_OUTCOMES
    latencies = [lat for _, outcome, lat, _ in window if lat is not None and outcome in ENGAGED_OUTCOMES]
    categories, types = split_topics(suppressed)
    return FeedbackSummary(
        total_sent=total,
        engaged=engaged,
        ignored=outcomes["ignored"],
        negative=outcomes["negative"],
        pending=outcomes["pending"],
        engagement_rate=round(engaged / total, 4) if total else None,
        engagement_by_category={k: round(v[1] / v[0], 4) for k, v in sorted(by_category.items())},
        avg_response_latency_seconds=round(sum(latencies) / len(latencies), 1) if latencies else None,
        late_replies=sum(1 for latency in latencies if latency > late_after),
        suppressed_categories=categories,
        suppressed_types=types,
    )


def _meant(topics: Sequence[str], answered: Answered | None) -> tuple[str, ...]:
    """The topics a stop meant: each word as said, or the answered message's signal types for a
    word no type answers to that the message itself used ("storm" in "Storm warning tonight")."""
    if answered is None or not answered.types:
        return tuple(topics)
    words = set(re.findall(r"[a-z]+", answered.text.casefold()))
    out: list[str] = []
    for topic in topics:
        covers = any(topic_covers_type(topic, t) for t in answered.types)
        meant = answered.types if not covers and (topic in words or f"{topic}s" in words) else [topic]
        out += [t for t in meant if t not in out]
    return tuple(out)


def learned_ignored_types(window: list[tuple[str, str, float | None, list[str]]]) -> list[str]:
    decided: Counter[str] = Counter()
    engaged: Counter[str] = Counter()
    for _, outcome, _, types in window:
        if outcome == "pending":
            continue
        for signal_type in set(types):
            decided[signal_type] += 1
            engaged[signal_type] += outcome in ENGAGED_OUTCOMES
    return sorted(t for t, n in decided.items() if n >= LEARN_IGNORED_AFTER and engaged[t] == 0)


def _about(reading: Reading, answered: Answered) -> bool:
    """Whether a reply is feedback on the message it answers. One that stops or asks back named
    topics is about those: otherwise "unsubscribe from weather" would mark the deadline reminder it
    answered ``negative`` (three of those suppress deadlines), and "start sending me weather again"
    would mark it ``engaged``. A word no topic knows stands for the answered message's own types
    (``_meant``), so it is about it."""
    if reading.intent not in ("opt_out_topic", "mute_topic", "opt_in") or not reading.topics:
        return True
    return any(
        not known_topic(topic)
        or any(topic_covers_type(topic, type_) for type_ in answered.types)
        or topic_covers_category(topic, answered.category)
        for topic in reading.topics
    )


class FeedbackLoop:
    def __init__(
        self,
        settings: ProactiveSettings,
        sends: SendRepository,
        suppressions: SuppressionRepository,
        users: UserRepository,
        counters: CounterRepository,
    ) -> None:
        self._settings = settings
        self._sends = sends
        self.suppressions = suppressions
        self._users = users
        self._counters = counters

    async def on_reply(
        self, conn: AsyncConnection, tenant: str, user_id: str, *, text: str, button_id: str | None, now: datetime
    ) -> ReplyEffect:
        """Label the user's pending sends by this reply, and do what it asks.

        The reply answers the newest pending send made before it (a button press: the newest that
        carried buttons): negative if it pushes back or asks to stop, a button_click if it pressed
        that prompt's button, engaged otherwise, up to
        the ignore timeout. A reply after the engagement window is engaged too, with its
        latency (``late_replies`` in the summary): left pending until the sweep called it ignored,
        a user who answered at 90 minutes would be "ignoring" us. Past the
        timeout a send is ignored, whatever the reply says. An opt-out holds with nothing pending.
        """
        timeout = timedelta(minutes=self._settings.ignore_timeout_minutes)
        reading = read_reply(text)
        labelled, answered = self._label(
            await self._sends.pending(conn, tenant, user_id), reading, button_id, now, timeout
        )
        for send_id, outcome, latency in labelled:
            await self._sends.set_outcome(conn, tenant, [send_id], outcome, now, latency=latency)
        counts = Counter(f"feedback:{outcome}" for _, outcome, _ in labelled)
        opted_out, opted_in = await self._act(conn, tenant, user_id, reading, answered, now)
        if opted_out is not None:
            scope = "all" if opted_out.all else "topic" if opted_out.topics else "category"
            counts[f"{'mute' if opted_out.until else 'opt_out'}:{scope}"] += 1
        if opted_in is not None:
            counts["opt_in:all" if opted_in.all else "opt_in:topic"] += 1
        await self._counters.bump(conn, tenant, now, counts)
        if labelled:
            await self.refresh(conn, tenant, user_id, now)
        intent = reading.intent
        if intent == "opt_out_category" and opted_out is not None and opted_out.all:
            intent = "opt_out"  # "stop sending me these" with nothing to point at: everything was switched off
        return ReplyEffect([send_id for send_id, _, _ in labelled], intent, opted_out, opted_in)

    @staticmethod
    def _label(
        pending: Sequence[Any], reading: Reading, button_id: str | None, now: datetime, timeout: timedelta
    ) -> tuple[list[tuple[str, FeedbackOutcome, float | None]], Answered | None]:
        """Each pending send's new outcome, and the message this reply answers."""
        labelled: list[tuple[str, FeedbackOutcome, float | None]] = []
        answered: Answered | None = None
        for row in pending:  # newest first
            age = now - row.sent_at
            if age < timedelta(0):
                continue  # sent after this reply: not an answer to it
            if age >= timeout:
                labelled.append((row.id, "ignored", None))
                continue
            if answered is not None:
                continue
            if button_id is not None and row.action_type != "button_prompt":
                continue  # a press answers the message that carried the button, not the newest
            answered = Answered(row.category, list(row.trigger_signals or []), row.message or "")
            seconds = age.total_seconds()
            if not _about(reading, answered):
                continue  # "unsubscribe from weather" after a deadline reminder says nothing of the reminder
            if reading.intent in STOPPING or reading.intent == "negative":
                labelled.append((row.id, "negative", seconds))
            elif button_id is not None:
                labelled.append((row.id, "button_click", seconds))
            else:
                labelled.append((row.id, "engaged", seconds))
        return labelled, answered

    async def _latest(self, conn: AsyncConnection, tenant: str, user_id: str, now: datetime) -> Answered | None:
        """The user's last delivered message in the ignore timeout (what "these" means when nothing
        is pending any more)."""
        since = now - timedelta(minutes=self._settings.ignore_timeout_minutes)
        window = await self._sends.window_dated(conn, tenant, user_id, since)
        if not window:
            return None
        last = max(window, key=lambda row: row[2])
        return Answered(last[0], last[3])

    async def _until(
        self, conn: AsyncConnection, tenant: str, user_id: str, reading: Reading, now: datetime
    ) -> datetime | None:
        """When a mute ends: the end of the user's own day for "today" and "tonight", else its span."""
        if reading.day_end:
            zone = ZoneInfo((await self._users.get(tenant, user_id, connection=conn)).timezone)
            return local_day_start(now, zone) + timedelta(days=1)
        return now + timedelta(hours=reading.hours) if reading.hours else None

    async def _act(
        self,
        conn: AsyncConnection,
        tenant: str,
        user_id: str,
        reading: Reading,
        answered: Answered | None,
        now: datetime,
    ) -> tuple[OptOut | None, OptOut | None]:
        """Do what the reply asks: (what was switched off, what was switched back on).

        "These" stops the answered message's signal types (or, nothing pending any more, the last
        message's), its category only when no signal type stood behind it: stopping its category
        would also stop every other type sharing it. With no message to point at, it is
        a stop of everything: the user asked to stop, and guessing which kind they meant would send
        them one more.

        A word no signal type answers to ("no more storm warnings" after a ``weather_alert`` about a
        storm) means the answered message's types when that message used the word: stored as a
        word, it would stop nothing."""
        users = self._users
        until = await self._until(conn, tenant, user_id, reading, now)
        match reading.intent:
            case "opt_out_topic" | "mute_topic":
                topics = _meant(reading.topics, answered)
                await users.opt_out(conn, tenant, user_id, [], dict.fromkeys(topics, until))
                return OptOut(all=False, topics=list(topics), until=until), None
            case "opt_out_category":
                last = answered or await self._latest(conn, tenant, user_id, now) or Answered("", [])
                if last.types:
                    await users.opt_out(conn, tenant, user_id, [], dict.fromkeys(last.types))
                    return OptOut(all=False, topics=sorted(set(last.types))), None
                if last.category:
                    await users.opt_out(conn, tenant, user_id, [last.category])
                    return OptOut(all=False, categories=[last.category]), None
                await users.opt_out(conn, tenant, user_id, [])
                return OptOut(all=True), None
            case "opt_out":
                await users.opt_out(conn, tenant, user_id, [])
                return OptOut(all=True), None
            case "mute":
                await users.update_controls(conn, tenant, user_id, muted_until=until)
                return OptOut(all=True, until=until), None
            case "opt_in":
                await users.opt_in(conn, tenant, user_id, [], CATEGORIES, reading.topics)
                await self.suppressions.lift(conn, tenant, user_id, reading.topics, now)  # the user's word wins
                return None, OptOut(all=not reading.topics, topics=list(reading.topics))
        return None, None

    async def refresh(self, conn: AsyncConnection, tenant: str, user_id: str, now: datetime) -> FeedbackSummary:
        """Re-derive suppressions and ignored signal types from the windows; the summary."""
        s = self._settings
        window = (await self._sends.window(conn, tenant, [user_id], now - timedelta(days=s.feedback_days))).get(
            user_id, []
        )
        recent = now - timedelta(days=s.suppression_days)
        dated = [
            (topics_of(category, types), outcome, sent)
            for category, outcome, sent, types in await self._sends.window_dated(conn, tenant, user_id, recent)
        ]
        suppressed = await self.suppressions.refresh(conn, tenant, user_id, dated, now, s)
        await self._users.set_learned_ignored(conn, tenant, user_id, learned_ignored_types(window))
        return summarise(window, suppressed, late_after=s.engagement_window_minutes * 60)

    async def summary(self, conn: AsyncConnection, tenant: str, user_id: str, now: datetime) -> FeedbackSummary:
        return (await self.summaries(conn, tenant, [user_id], now))[user_id]

    async def summaries(
        self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], now: datetime
    ) -> dict[str, FeedbackSummary]:
        """Seed 004 §5's summary for a batch of users, in two queries."""
        s = self._settings
        windows = await self._sends.window(conn, tenant, user_ids, now - timedelta(days=s.feedback_days))
        suppressed = await self.suppressions.active(conn, tenant, user_ids, now)
        late = s.engagement_window_minutes * 60
        return {
            user_id: summarise(windows.get(user_id, []), sorted(suppressed.get(user_id, ())), late_after=late)
            for user_id in user_ids
        }
