"""What a rated decision should have been, in SQL: routing and admission feedback keep their
ratings the same way (``DecisionRecordRepository.rate``), so one expression reads both."""

from __future__ import annotations

from sqlalchemy import ColumnElement, case

from phronesis.storage.tables import decision_records

__all__ = ["should_have_been"]


def should_have_been(key: str) -> ColumnElement[str]:
    """Over ``decision_records``: the decision a rated record should have made — its own when it
    was rated correct, the rating's ``expected_decision`` (kept under ``attributes[key]``) when
    incorrect; NULL when it is unrated or the rating named none. The dashboard's confusion matrix
    and the replays' estimates both read the truth from here."""
    c = decision_records.c
    expected = c.attributes[key]["expected_decision"].as_string()
    return case((c.outcome == "correct", c.action), (c.outcome == "incorrect", expected))
