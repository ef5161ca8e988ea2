"""Seed 004 §5, the feedback loop: pending → engaged / ignored / negative / button_click.

- a reply within ``engagement_window`` (60 min) of a send → engaged, with its latency;
- a pressed button on a button prompt → button_click;
- a reply that pushes back ("stop", "leave me alone", "not helpful") → negative;
- no reply ``ignore_timeout`` (180 min) after a send → ignored (a sweep each tick).

Only sends made before the reply are touched, the newest first (the original credited
whatever was pending). After feedback changes, the user's suppressed categories and the
signal types they ignore are re-derived from the window.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.proactive.models import ENGAGED_OUTCOMES, FeedbackOutcome, FeedbackSummary
from phronesis.proactive.sends import SendRepository
from phronesis.proactive.suppression import SuppressionRepository
from phronesis.proactive.users import UserRepository
from phronesis.settings import ProactiveSettings

__all__ = ["FeedbackLoop", "is_negative", "summarise"]

_NEGATIVE = re.compile(
    r"\b(stop (sending|texting|messaging)|stop it|don'?t (text|message|send|bother) me|leave me alone|"
    r"unsubscribe|not (helpful|useful|now)|annoying|go away|shut up|too many messages|spam)\b",
    re.IGNORECASE,
)
_STOP_ALONE = re.compile(r"^\s*stop\W*$", re.IGNORECASE)

LEARN_IGNORED_AFTER = 3
"""A signal type behind this many decided sends, none engaged, counts as one the user ignores."""


def is_negative(text: str) -> bool:
    return bool(_NEGATIVE.search(text) or _STOP_ALONE.match(text))


def summarise(window: list[tuple[str, str, float | None, list[str]]], suppressed: list[str]) -> FeedbackSummary:
    """Seed 004 §5's ``get_feedback_summary``: rates over everything sent (8 of 12 → 0.67)."""
    outcomes = Counter(outcome for _, outcome, _, _ in window)
    total = len(window)
    engaged = sum(outcomes[o] for o in ENGAGED_OUTCOMES)
    by_category: dict[str, list[int]] = {}
    for category, outcome, _, _ in window:
        counts = by_category.setdefault(category, [0, 0])
        counts[0] += 1
        counts[1] += outcome in ENGAGED_OUTCOMES
    latencies = [lat for _, outcome, lat, _ in window if lat is not None and outcome in ENGAGED_OUTCOMES]
    return FeedbackSummary(
        total_sent=total,
        engaged=engaged,
        ignored=outcomes["ignored"],
        negative=outcomes["negative"],
        pending=outcomes["pending"],
        engagement_rate=round(engaged / total, 4) if total else None,
        engagement_by_category={k: round(v[1] / v[0], 4) for k, v in sorted(by_category.items())},
        avg_response_latency_seconds=round(sum(latencies) / len(latencies), 1) if latencies else None,
        suppressed_categories=suppressed,
    )


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


class FeedbackLoop:
    def __init__(
        self,
        settings: ProactiveSettings,
        sends: SendRepository,
        suppressions: SuppressionRepository,
        users: UserRepository,
    ) -> None:
        self._settings = settings
        self._sends = sends
        self._suppressions = suppressions
        self._users = users

    async def on_reply(
        self, conn: AsyncConnection, tenant: str, user_id: str, *, text: str, button_id: str | None, now: datetime
    ) -> list[str]:
        """Label the user's pending sends by this reply; the ids of the sends it labelled.

        The reply answers the newest pending send made before it: negative if it pushes
        back, a button_click if it pressed that prompt's button, engaged within the window.
        Between the window and the timeout the seed leaves a send pending; past the
        timeout it is ignored, whatever the reply says.
        """
        s = self._settings
        window = timedelta(minutes=s.engagement_window_minutes)
        timeout = timedelta(minutes=s.ignore_timeout_minutes)
        labelled: list[tuple[str, FeedbackOutcome, float | None]] = []
        answered = False
        for row in await self._sends.pending(conn, tenant, user_id):  # newest first
            age = now - row.sent_at
            if age < timedelta(0):
                continue  # sent after this reply: not an answer to it
            if age >= timeout:
                labelled.append((row.id, "ignored", None))
                continue
            if answered:
                continue
            answered = True
            seconds = age.total_seconds()
            if is_negative(text):
                labelled.append((row.id, "negative", seconds))
            elif button_id is not None and row.action_type == "button_prompt":
                labelled.append((row.id, "button_click", seconds))
            elif age <= window:
                labelled.append((row.id, "engaged", seconds))
        for send_id, outcome, latency in labelled:
            await self._sends.set_outcome(conn, tenant, [send_id], outcome, now, latency=latency)
        if labelled:
            await self.refresh(conn, tenant, user_id, now)
        return [send_id for send_id, _, _ in labelled]

    async def refresh(self, conn: AsyncConnection, tenant: str, user_id: str, now: datetime) -> FeedbackSummary:
        """Re-derive suppressions and ignored signal types from the windows; the summary."""
        s = self._settings
        window = await self._sends.window(conn, tenant, user_id, now - timedelta(days=s.feedback_days))
        recent = now - timedelta(days=s.suppression_days)
        dated = await self._sends.window_dated(conn, tenant, user_id, recent)
        suppressed = await self._suppressions.refresh(conn, tenant, user_id, dated, now, s)
        await self._users.set_learned_ignored(conn, tenant, user_id, learned_ignored_types(window))
        return summarise(window, suppressed)

    async def summary(self, conn: AsyncConnection, tenant: str, user_id: str, now: datetime) -> FeedbackSummary:
        s = self._settings
        window = await self._sends.window(conn, tenant, user_id, now - timedelta(days=s.feedback_days))
        suppressed = sorted((await self._suppressions.active(conn, tenant, [user_id], now)).get(user_id, frozenset()))
        return summarise(window, suppressed)
