"""The executive's settings a tenant may tune (seed 000: its threshold, personality bias, decision
strategy and the urgency-tiered cut-offs), and the pairs that must stay in order."""

from __future__ import annotations

from phronesis.executive.config import THRESHOLD_BOUNDS
from phronesis.executive.factory import STRATEGY_NAMES
from phronesis.executive.settings import ExecutiveSettings
from phronesis.executive.urgency_tiered import CUTOFFS
from phronesis.tuning import Tunable

__all__ = ["ORDERED", "TUNABLES"]


def _cutoff(name: str) -> Tunable:
    return Tunable(
        f"executive.urgency.{name}",
        "executive",
        lambda s: float(getattr(s, f"urgency_{name}")),
    )


def _strategy(s: ExecutiveSettings) -> str:
    # without an A/B experiment, the strategy every event not asking for its own is decided by
    return s.decision_strategy


TUNABLES = (
    # seed 000 F-24 clamps the threshold to this range: a value outside it would be listed as
    # applied while decisions used the bound
    Tunable("executive.heuristic_threshold", "executive", lambda s: s.heuristic_threshold, THRESHOLD_BOUNDS),
    # past ±0.5 every threshold is clamped (F-24's safe range): nothing more would change
    Tunable("executive.personality_bias", "executive", lambda s: s.personality_bias, (-0.5, 0.5)),
    Tunable("executive.strategy", "executive", _strategy, choices=STRATEGY_NAMES),
    *(_cutoff(name) for name in CUTOFFS),
)
ORDERED = (
    ("executive.urgency.soon_min", "executive.urgency.immediate_min"),
    ("executive.urgency.reasonable_similarity", "executive.urgency.high_similarity"),
)
"""Cut-offs a tenant's values must keep in order, lower first (never a soon tier above the
immediate one)."""
