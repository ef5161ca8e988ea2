"""Decision records: every decision, auditable, replayable, tunable."""

from __future__ import annotations

from typing import TYPE_CHECKING

from phronesis.lazy import exports

if TYPE_CHECKING:
    from phronesis.audit.models import DecisionKind, DecisionRecord, NewDecisionRecord, PathCount
    from phronesis.audit.repository import DecisionRecordRepository

__all__ = ["DecisionKind", "DecisionRecord", "DecisionRecordRepository", "NewDecisionRecord", "PathCount"]

__getattr__ = exports(
    __name__,
    {
        "DecisionKind": "phronesis.audit.models",
        "DecisionRecord": "phronesis.audit.models",
        "DecisionRecordRepository": "phronesis.audit.repository",
        "NewDecisionRecord": "phronesis.audit.models",
        "PathCount": "phronesis.audit.models",
    },
)
