"""Decision records: every decision, auditable, replayable, tunable."""

from phronesis.audit.models import DecisionKind, DecisionRecord, NewDecisionRecord, PathCount
from phronesis.audit.repository import DecisionRecordRepository

__all__ = ["DecisionKind", "DecisionRecord", "DecisionRecordRepository", "NewDecisionRecord", "PathCount"]
