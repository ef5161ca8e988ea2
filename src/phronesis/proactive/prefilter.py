"""Seed 004 §3, the pre-filter: hard rules before any LLM call, in the seed's order.

0. the controls a person set, before anything else and whatever the urgency: the
   tenant paused proactive messages → ``paused``; the user opted out of all of them →
   ``opted_out``; the user is muted until a later time → ``muted``;
1. trust min-urgency (+``ignored_type_penalty`` for signal types the user tends to ignore);
   nothing left and nothing urgent → ``low_urgency``;
2. quiet hours in the user's timezone → ``quiet_hours``, unless a signal is urgent;
3. the trust level's daily cap → ``daily_cap`` (urgent signals do *not* bypass it);
4. cooldown since the last proactive message → ``cooldown``, unless a signal is urgent;
5. context-only signals alone never start a cycle → ``context_only``.

It is a pure function of one user's state, so a tick decides thousands of users from a
few set-based reads (``state.py``) and this loop. Blocked signals are not consumed: a
signal blocked by quiet hours is still there at wake time, unless it expired (the
"defer to the window" policy, with the signal's own expiry as its TTL).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from phronesis.proactive.models import BlockReason, Signal
from phronesis.proactive.quiet_hours import is_quiet, local_day_start
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.topics import candidate_stopped
from phronesis.proactive.trust import Trust

__all__ = ["PREFILTER_REASONS", "Screened", "UserState", "controlled", "prefilter", "sends_today"]

PREFILTER_REASONS: tuple[BlockReason, ...] = (
    "paused", "opted_out", "muted", "no_signals", "context_only", "low_urgency", "quiet_hours", "daily_cap", "cooldown",
)  # fmt: skip
"""Every reason ``controlled`` and ``prefilter`` below block with: decided before any candidate
(the dashboard's funnel counts the users past them)."""


@dataclass(frozen=True, slots=True)
class UserState:
    """What the pre-filter needs to know about one user at ``now``."""

    user_id: str
    zone: ZoneInfo
    sleep: time
    wake: time
    trust: Trust
    signals: list[Signal]
    recent_sends: list[datetime]
    """Proactive sends of the last 24 hours (or more), any order."""
    ignored_types: frozenset[str] = frozenset()
    opted_out: bool = False
    allowed_topics: frozenset[str] = frozenset()
    """Topics that pass an opt-out of everything (``UserProfile.opted_in_topics``)."""
    muted_until: datetime | None = None
    paused: bool = False
    """The user's tenant paused every proactive message (the kill switch)."""


@dataclass(frozen=True, slots=True)
class Screened:
    user_id: str
    trust: Trust
    reason: BlockReason | None
    """None: go on to candidates."""
    signals: list[Signal] = field(default_factory=list)
    """The signals that passed (context-only ones ride along as context)."""
    urgent: bool = False
    sends_today: int = 0
    detail: dict[str, str] = field(default_factory=dict)
    """What a block's explanation says beyond its reason: quiet hours' local end (``until_local``)
    and the user's timezone."""

    @property
    def passed(self) -> bool:
        return self.reason is None


def sends_today(state: UserState, now: datetime, day: str) -> int:
    """Sends since the start of the user's local day (``day="local"``) or the UTC day."""
    zone = state.zone if day == "local" else ZoneInfo("UTC")
    start = local_day_start(now, zone)
    return sum(1 for sent in state.recent_sends if sent >= start)


def controlled(state: UserState, now: datetime) -> BlockReason | None:
    """What a person set that silences this user now, whatever their signals say."""
    if state.paused:
        return "paused"
    if state.opted_out and not state.allowed_topics:
        return "opted_out"
    if state.muted_until is not None and state.muted_until > now:
        return "muted"
    return None


def prefilter(state: UserState, now: datetime, settings: ProactiveSettings) -> Screened:
    policy = state.trust.policy
    control = controlled(state, now)
    if control is not None:
        return Screened(state.user_id, state.trust, control)
    live = [s for s in state.signals if s.expires_at > now]
    if state.opted_out:  # opted out of everything but some topics: those only
        live = [s for s in live if s.context_only or candidate_stopped(state.allowed_topics, [s.type], "")]
        if not any(not s.context_only for s in live):
            return Screened(state.user_id, state.trust, "opted_out")
    context = [s for s in live if s.context_only]
    concrete = [s for s in live if not s.context_only]
    if not concrete:
        return Screened(state.user_id, state.trust, "context_only" if context else "no_signals")

    def needed(signal: Signal) -> int:
        return policy.min_urgency + (settings.ignored_type_penalty if signal.type in state.ignored_types else 0)

    urgent_at = settings.urgent_threshold
    kept = [s for s in concrete if s.urgency_hint >= needed(s) or s.urgency_hint >= urgent_at]
    if not kept:
        return Screened(state.user_id, state.trust, "low_urgency")
    urgent = [s for s in kept if s.urgency_hint >= urgent_at]

    if is_quiet(now, state.zone, wake=state.wake, sleep=state.sleep):
        if not urgent:
            until = {"until_local": state.wake.strftime("%H:%M"), "timezone": str(state.zone)}
            return Screened(state.user_id, state.trust, "quiet_hours", detail=until)
        kept = urgent  # seed 004: during quiet hours only urgent signals pass

    count = sends_today(state, now, settings.daily_cap_day)
    if count >= policy.daily_cap:  # seed 004: urgent signals never bypass the cap
        return Screened(state.user_id, state.trust, "daily_cap", sends_today=count)

    last = max(state.recent_sends, default=None)
    if last is not None and now - last < timedelta(minutes=settings.cooldown_minutes):
        if not urgent:
            return Screened(state.user_id, state.trust, "cooldown", sends_today=count)
        kept = urgent

    kept.sort(key=lambda s: (-s.urgency_hint, s.created_at))
    chosen = kept[: settings.max_signals]
    return Screened(
        state.user_id,
        state.trust,
        None,
        signals=chosen + context[: max(0, settings.max_signals - len(chosen))],
        urgent=bool(urgent),
        sends_today=count,
    )
