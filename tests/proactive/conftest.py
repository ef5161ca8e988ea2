"""Proactive test helpers: users, signals and states in one line."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.proactive.models import Signal, SignalIn, UserIn
from phronesis.proactive.module import ProactiveModule
from phronesis.proactive.prefilter import UserState
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.trust import trust_for
from phronesis.storage.database import Database
from phronesis.testing import FixedClock, RecordingChannel

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


START = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
ESTABLISHED = UserIn(created_at=START - timedelta(days=40), interaction_count=150)
AWAKE = ESTABLISHED.model_copy(update={"sleep_time": "00:00", "wake_time": "00:00"})
"""An established user with no quiet hours: every cycle may send."""


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(START)


@pytest.fixture
def channel() -> RecordingChannel:
    return RecordingChannel()


@pytest.fixture
def make(database: Database, clock: FixedClock, channel: RecordingChannel) -> Callable[..., ProactiveModule]:
    def build(llm: Any = None, channel_: RecordingChannel | None = None, **settings: Any) -> ProactiveModule:
        return ProactiveModule(
            ProactiveSettings(**({"seed": 7} | settings)),
            database=database,
            llm=llm,
            decisions=DecisionRecordRepository(database, clock=clock),
            clock=clock,
            channels={"console": channel_ or channel},
        )

    return build


@pytest.fixture
def proactive(make: Callable[..., ProactiveModule]) -> ProactiveModule:
    return make()


def deadline(urgency: int = 8, key: str = "cs2103", **data: Any) -> SignalIn:
    return SignalIn(
        type="deadline_approaching",
        urgency_hint=urgency,
        data={"title": "CS2103 project", "due": (START + timedelta(minutes=50)).isoformat()} | data,
        dedup_key=key,
    )
