"""The proactive loop's settings a tenant may tune (seed 004: each trust level's score threshold
and daily cap, the composite score's weights)."""

from __future__ import annotations

from typing import get_args

from phronesis.proactive.scoring import PARTS
from phronesis.proactive.settings import TrustLevelName
from phronesis.tuning import Tunable

__all__ = ["ORDERED", "TUNABLES"]

LEVELS: tuple[TrustLevelName, ...] = get_args(TrustLevelName)


def _score_threshold(level: TrustLevelName) -> Tunable:
    # seed 004's composite score is 0-10
    return Tunable(
        f"proactive.score_threshold.{level}",
        "proactive",
        lambda s: s.trust_levels[level].score_threshold,
        (0.0, 10.0),
    )


def _weight(part: str) -> Tunable:
    return Tunable(f"proactive.weight.{part}", "proactive", lambda s: float(getattr(s, f"{part}_weight")))


def _daily_cap(level: TrustLevelName) -> Tunable:
    # messages a day: a whole number
    return Tunable(
        f"proactive.daily_cap.{level}",
        "proactive",
        lambda s: s.trust_levels[level].daily_cap,
        (0.0, 50.0),
        whole=True,
    )


TUNABLES = (
    *(_score_threshold(level) for level in LEVELS),
    *(_weight(part) for part in PARTS),
    *(_daily_cap(level) for level in LEVELS),
)
ORDERED: tuple[tuple[str, str], ...] = ()
