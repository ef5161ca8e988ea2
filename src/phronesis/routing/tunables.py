"""The router's settings a tenant may tune (seed 002's confidence thresholds, the cascade's)."""

from __future__ import annotations

from phronesis.tuning import Tunable

__all__ = ["ORDERED", "TUNABLES"]

TUNABLES = (
    Tunable("routing.cascade_threshold", "routing", lambda s: s.cascade_threshold),
    Tunable("routing.high_threshold", "routing", lambda s: s.high_threshold),
    Tunable("routing.low_threshold", "routing", lambda s: s.low_threshold),
)
ORDERED = (("routing.low_threshold", "routing.high_threshold"),)
"""The low threshold stays below the high one (never an "Apply 0.3" for a high threshold below
the low one)."""
