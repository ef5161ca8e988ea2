"""Set-based reads for a tick: everything the pre-filter needs for a chunk of users in three queries.

Users with a live concrete signal are found by a keyset scan of the signals index; then
one query each for their profiles, their pending signals and their sends of the last day.
A tick over many users is a handful of round trips per chunk, not one per rule per user.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.proactive.controls import TenantControls
from phronesis.proactive.prefilter import UserState
from phronesis.proactive.sends import SendRepository
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.signals import SignalRepository
from phronesis.proactive.trust import trust_for
from phronesis.proactive.users import UserRepository
from phronesis.tuning import TenantValues

__all__ = ["StateLoader", "zone"]

PREFIX = "proactive."
"""The tenant settings a cycle reads: each trust level's score threshold and daily cap
(``proactive.score_threshold.<level>``, ``proactive.daily_cap.<level>``) and the composite's
weights (``proactive.weight.<part>``)."""
CAP_LOOKBACK = timedelta(hours=27)
"""Covers any local day (UTC−12…+14) plus the cooldown, so one read serves both rules."""


@lru_cache(maxsize=1024)
def zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


@lru_cache(maxsize=4096)
def clock_time(value: str) -> time:
    return time.fromisoformat(value)


class StateLoader:
    def __init__(
        self,
        settings: ProactiveSettings,
        users: UserRepository,
        signals: SignalRepository,
        sends: SendRepository,
        controls: TenantControls,
        tenant_settings: TenantValues | None = None,
    ) -> None:
        self._settings = settings
        self._tenant_settings = tenant_settings
        self._controls = controls
        self._users = users
        self._signals = signals
        self._sends = sends

    async def load(self, conn: AsyncConnection, tenant: str, user_ids: Sequence[str], now: datetime) -> list[UserState]:
        rows = await self._users.rows(conn, tenant, user_ids)
        ids = [row.id for row in rows]
        if not ids:
            return []
        pending = await self._signals.pending_for(conn, tenant, ids, now)
        recent = await self._sends.recent_for(conn, tenant, ids, now - CAP_LOOKBACK)
        paused = await self._controls.paused(conn, tenant)
        tuned = await self._tuned(conn, tenant)
        s = self._settings
        states = []
        for row in rows:
            states.append(
                UserState(
                    user_id=row.id,
                    zone=zone(row.timezone),
                    sleep=clock_time(row.sleep_time),
                    wake=clock_time(row.wake_time),
                    trust=trust_for(
                        s,
                        now=now,
                        created_at=row.created_at,
                        interactions=row.interaction_count,
                        last_active_at=row.last_active_at,
                        tuned=tuned,
                    ),
                    signals=pending.get(row.id, []),
                    recent_sends=recent.get(row.id, []),
                    ignored_types=frozenset(row.ignored_signal_types or ())
                    | frozenset(row.learned_ignored_types or ()),
                    opted_out=row.opted_out,
                    allowed_topics=frozenset(row.opted_in_topics or ()),
                    muted_until=row.muted_until,
                    paused=paused,
                )
            )
        return states

    async def _tuned(self, conn: AsyncConnection, tenant: str) -> dict[str, float]:
        """The tenant's own thresholds and weights, read at each cycle (many processes)."""
        if self._tenant_settings is None:
            return {}
        applied = await self._tenant_settings.applied(tenant, PREFIX, connection=conn)
        return {name.removeprefix(PREFIX): value for name, value in applied.items()}
