"""Admission's settings a tenant may tune (seed 003's pre-filter and duplicate thresholds)."""

from __future__ import annotations

from phronesis.tuning import Tunable

__all__ = ["ORDERED", "TUNABLES"]

TUNABLES = (
    Tunable("admission.low_similarity", "admission", lambda s: s.low_similarity),
    # a calibrated tenant's own threshold stands until one is applied (``AdmissionService``)
    Tunable("admission.duplicate_threshold", "admission", lambda s: s.duplicate_threshold),
)
ORDERED = (("admission.low_similarity", "admission.duplicate_threshold"),)
"""The pre-filter's threshold stays below the duplicate threshold."""
