"""Seed 004 §4, the trust ramp: how much proactive behaviour a relationship has earned.

Both conditions must hold to graduate ("a user who signed up 30 days ago but only sent 15
messages stays new"). The original also steps a user back down after inactivity (ORIGINS §4:
≥30 days −1 level, ≥60 days −2); that is here too, from ``last_active_at``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from phronesis.proactive.models import TRUST_ORDER, TrustLevel
from phronesis.proactive.scoring import Weights
from phronesis.proactive.settings import ProactiveSettings, TrustLevelSettings

__all__ = ["Trust", "trust_for"]


@dataclass(frozen=True, slots=True)
class Trust:
    level: TrustLevel
    policy: TrustLevelSettings
    days_active: int
    interactions: int
    demoted_by: int = 0
    weights: Weights = Weights()
    """The composite's weights for this user's candidates: the tenant's, else the configured ones.
    Not trust's own, but read with the tenant's thresholds and recorded with them, so a replay
    of one weight keeps the others each cycle used."""

    def info(self) -> dict[str, object]:
        """What the context, the prompt and the decision record show about trust."""
        return {
            "level": self.level,
            "score_threshold": self.policy.score_threshold,
            "daily_cap": self.policy.daily_cap,
            "min_urgency": self.policy.min_urgency,
            "days_active": self.days_active,
            "interactions": self.interactions,
            "demoted_by": self.demoted_by,
            "weights": self.weights.info(),
        }


def _earned(days: int, interactions: int, s: ProactiveSettings) -> int:
    if days < s.building_after_days or interactions < s.building_after_messages:
        return 0
    if days < s.established_after_days or interactions < s.established_after_messages:
        return 1
    if days < s.deep_after_days:
        return 2
    return 3


def trust_for(
    settings: ProactiveSettings,
    *,
    now: datetime,
    created_at: datetime,
    interactions: int,
    last_active_at: datetime | None,
    tuned: Mapping[str, float] | None = None,
) -> Trust:
    """``tuned``: the tenant's own values of ``proactive.*`` settings, prefix removed
    (``score_threshold.<level>``, ``daily_cap.<level>``, ``weight.<part>``: ``tenant_settings``)."""
    days = max(0, (now - created_at).days)
    rung = _earned(days, interactions, settings)
    demoted = 0
    if last_active_at is not None:
        idle = (now - last_active_at).days
        if idle >= settings.demote_two_after_days:
            demoted = 2
        elif idle >= settings.demote_one_after_days:
            demoted = 1
    level = TRUST_ORDER[max(0, rung - demoted)]
    policy = settings.trust_levels[level]
    tuned = tuned or {}
    threshold, cap = tuned.get(f"score_threshold.{level}"), tuned.get(f"daily_cap.{level}")
    if threshold is not None:
        policy = policy.model_copy(update={"score_threshold": threshold})
    if cap is not None:
        policy = policy.model_copy(update={"daily_cap": int(cap)})
    return Trust(level, policy, days, interactions, min(demoted, rung), Weights.of(settings, tuned))
