"""Seed 004 §5, the feedback loop: pending → engaged / ignored / negative / button_click.

- a reply within ``engagement_window`` (60 min) of a send → engaged, with its latency;
- a pressed button on a button prompt → button_click;
- a reply that pushes back ("not helpful") or asks to stop ("stop", "unsubscribe") → negative,
  and an opt-out for the latter (``replies``);
- a later reply, before the timeout → engaged too, with its latency (a late reply);
- no reply ``ignore_timeout`` (180 min) after a send → ignored (a sweep each tick).

Only sends made before the reply are touched, the newest first (the original credited
whatever was pending). After feedback changes, the user's suppressed categories and the
signal types they ignore are re-derived from the window.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.proactive.counters import CounterRepository
from phronesis.proactive.models import ENGAGED_OUTCOMES, FeedbackOutcome, FeedbackSummary, OptOut
from phronesis.proactive.replies import ReplyIntent, classify_reply
from phronesis.proactive.sends import SendRepository
from phronesis.proactive.suppression import SuppressionRepository
from phronesis.proactive.users import UserRepository
from phronesis.settings import ProactiveSettings

__all__ = ["FeedbackLoop", "ReplyEffect", "summarise"]


LEARN_IGNORED_AFTER = 3
"""A signal type behind this many decided sends, none engaged, counts as one the user ignores."""


@dataclass(frozen=True, slots=True)
class ReplyEffect:
    labelled: list[str]
    """The sends this reply labelled."""
    intent: ReplyIntent
    opted_out: OptOut | None
    """What the reply opted the user out of, if it asked to stop."""


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
        the ignore timeout. A reply after the engagement window used to leave the send pending
        until the sweep called it ignored: a user who answered at 90 minutes was "ignoring" us
        (issue 24); it is engaged, with its latency (``late_replies`` in the summary). Past the
        timeout a send is ignored, whatever the reply says. An opt-out holds with nothing pending.
        """
        timeout = timedelta(minutes=self._settings.ignore_timeout_minutes)
        intent = classify_reply(text) if text.strip() else "reply"
        labelled: list[tuple[str, FeedbackOutcome, float | None]] = []
        answered: str | None = None
        for row in await self._sends.pending(conn, tenant, user_id):  # newest first
            age = now - row.sent_at
            if age < timedelta(0):
                continue  # sent after this reply: not an answer to it
            if age >= timeout:
                labelled.append((row.id, "ignored", None))
                continue
            if answered is not None:
                continue
            if button_id is not None and row.action_type != "button_prompt":
                continue  # a press answers the message that carried the button (issue 48), not the newest
            answered = row.category
            seconds = age.total_seconds()
            if intent != "reply":
                labelled.append((row.id, "negative", seconds))
            elif button_id is not None and row.action_type == "button_prompt":
                labelled.append((row.id, "button_click", seconds))
            else:
                labelled.append((row.id, "engaged", seconds))
        for send_id, outcome, latency in labelled:
            await self._sends.set_outcome(conn, tenant, [send_id], outcome, now, latency=latency)
        counts = Counter(f"feedback:{outcome}" for _, outcome, _ in labelled)
        opted_out = await self._opt_out(conn, tenant, user_id, intent, answered, now)
        if opted_out is not None:
            counts["opt_out:all" if opted_out.all else "opt_out:category"] += 1
        await self._counters.bump(conn, tenant, now, counts)
        if labelled:
            await self.refresh(conn, tenant, user_id, now)
        if opted_out is not None and opted_out.all:
            intent = "opt_out"  # "stop sending me these" with nothing to point at: everything was switched off
        return ReplyEffect([send_id for send_id, _, _ in labelled], intent, opted_out)

    async def _latest(self, conn: AsyncConnection, tenant: str, user_id: str, now: datetime) -> str | None:
        """The category of the user's last delivered message in the ignore timeout (what "these" means
        when nothing is pending any more)."""
        since = now - timedelta(minutes=self._settings.ignore_timeout_minutes)
        window = await self._sends.window_dated(conn, tenant, user_id, since)
        return max(window, key=lambda row: row[2])[0] if window else None

    async def _opt_out(
        self,
        conn: AsyncConnection,
        tenant: str,
        user_id: str,
        intent: ReplyIntent,
        answered: str | None,
        now: datetime,
    ) -> OptOut | None:
        """What the reply opts the user out of: ``answered``'s category (or, nothing pending, the last
        message's) for "these", everything for a stop; None for any other reply."""
        if intent == "opt_out_category":
            category = answered or await self._latest(conn, tenant, user_id, now)
            if category is not None:
                await self._users.opt_out(conn, tenant, user_id, [category])
                return OptOut(all=False, categories=[category])
        if intent in ("opt_out", "opt_out_category"):  # "these" with nothing to point at: everything
            await self._users.opt_out(conn, tenant, user_id, [])
            return OptOut(all=True, categories=[])
        return None

    async def refresh(self, conn: AsyncConnection, tenant: str, user_id: str, now: datetime) -> FeedbackSummary:
        """Re-derive suppressions and ignored signal types from the windows; the summary."""
        s = self._settings
        window = (await self._sends.window(conn, tenant, [user_id], now - timedelta(days=s.feedback_days))).get(
            user_id, []
        )
        recent = now - timedelta(days=s.suppression_days)
        dated = await self._sends.window_dated(conn, tenant, user_id, recent)
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
