"""One way to rate a decision, for every decision point: ``rate(tenant, decision_id, rating)``.

The decision is named by its id (the record's: what ``decide`` answered); the rating is the
point's own (what a person can say about its decisions: a score on an executive decision or a
fire, right or wrong and what it should have been for a routing or an admission decision); the
receipt says what the rating taught. The last rating of a decision wins at every point.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from phronesis.exceptions import InvalidInputError

__all__ = ["Rates", "refuse_another"]

RatingT = TypeVar("RatingT", contravariant=True)
ReceiptT = TypeVar("ReceiptT", covariant=True)


class Rates(Protocol[RatingT, ReceiptT]):
    """A decision point's feedback seam (``tests/feedback/test_rates.py``: one contract, every point)."""

    async def rate(self, tenant: str, decision_id: str, rating: RatingT) -> ReceiptT:
        """Take ``rating`` of the decision ``decision_id``; ``NotFoundError`` when the tenant has no
        such decision of this point."""
        ...


def refuse_another(named: str, decision_id: str, *, field: str) -> None:
    """A rating whose body names another decision (``field``: ``named``) than the one rated is
    refused, naming the field: every point's rating that carries its decision's id."""
    if named != decision_id:
        raise InvalidInputError(field, f"the rating is of {named!r}, not of {decision_id!r}")
