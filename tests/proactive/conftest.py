"""Proactive test helpers: users, signals and states in one line."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from phronesis.proactive.models import Signal
from phronesis.proactive.prefilter import UserState
from phronesis.proactive.trust import trust_for
from phronesis.settings import ProactiveSettings

NOON = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def signal(urgency: int = 6, *, type: str = "deadline_approaching", context_only: bool = False, **data: Any) -> Signal:
    return Signal(
        id=f"s{urgency}{type}{context_only}",
        user_id="u",
        type=type,
        urgency_hint=urgency,
        data=data or {"title": "CS2103 project"},
        context_only=context_only,
        dedup_key=f"{type}:{urgency}",
        created_at=NOON - timedelta(minutes=1),
        expires_at=NOON + timedelta(days=1),
    )


def state(
    *signals: Signal,
    level_days: int = 40,
    interactions: int = 150,
    sends: tuple[datetime, ...] = (),
    tz: str = "UTC",
    sleep: str = "23:00",
    wake: str = "08:00",
    ignored: frozenset[str] = frozenset(),
    settings: ProactiveSettings | None = None,
    now: datetime = NOON,
) -> UserState:
    s = settings or ProactiveSettings()
    return UserState(
        user_id="u",
        zone=ZoneInfo(tz),
        sleep=time.fromisoformat(sleep),
        wake=time.fromisoformat(wake),
        trust=trust_for(
            s, now=now, created_at=now - timedelta(days=level_days), interactions=interactions, last_active_at=now
        ),
        signals=list(signals),
        recent_sends=list(sends),
        ignored_types=ignored,
    )
