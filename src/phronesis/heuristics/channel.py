"""What an implicit outcome says about a fire: a noisy channel, learned from rated fires.

Seed 001 turns each outcome into a fixed signal: no news is a positive, an undo a negative,
three ignores a negative. Whether a fire *helped* is only seen through them, and they lie in
known ways: an unnoticed failure is silent too, and a user moves on after a fire that
helped. Counting them as hard evidence makes confidence a rank, not a probability
(``bench_learning``: ECE 0.13 at 50 fires with unbiased raters, where confidence 0.8 should
mean "helps 8 times in 10").

Here each outcome ``o`` is an observation with two likelihoods, ``P(o | helped)`` and
``P(o | did not help)``. A fire with outcome ``o`` adds *soft* evidence: ``r`` towards
success and ``1 − r`` towards failure, where ``r = P(helped | o, p)`` by Bayes' rule with the
heuristic's current confidence ``p`` as the prior. At ``p`` equal to the true rate the
expected ``r`` is ``p`` itself, so confidence settles at the rate the heuristic really
helps instead of at the rate silence follows it.

The likelihoods start from a prior (``learning.channel_prior``, worth
``learning.channel_prior_strength`` fires per class) and are learned per tenant from
every fire that has both an implicit outcome and a standing explicit rating: the rating
says whether it helped, the outcome is what was seen (``learning_channel`` table, counted
in the same transaction as the rating or the outcome, so every process reads the same).
Known bias: a fire rated before any follow-up is acknowledged and cannot be ignored, so it
is counted as a timeout unless undone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Select, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.storage.inserts import increment
from phronesis.storage.tables import learning_channel

__all__ = [
    "DEFAULT_CHANNEL_PRIOR",
    "DEFAULT_CHANNEL_PRIOR_STRENGTH",
    "OUTCOMES",
    "Channel",
    "as_counts",
    "count_observation",
    "counts_query",
    "read_counts",
]

OUTCOMES = ("implicit_timeout", "implicit_undo", "implicit_ignored", "user_implicit")
"""The implicit outcomes of a fire; each fire has at most one (``heuristic_fires.implicit_source``)."""

DEFAULT_CHANNEL_PRIOR: Mapping[str, tuple[float, float]] = {
    #                   P(o | helped), P(o | did not help)
    "implicit_timeout": (0.80, 0.30),
    "implicit_ignored": (0.12, 0.30),
    "user_implicit": (0.06, 0.02),
    "implicit_undo": (0.02, 0.38),
}
"""Before any rated fire: silence mostly follows a fire that helped but often one that failed
unnoticed; an undo almost only follows a failure; thanks mostly a success."""

DEFAULT_CHANNEL_PRIOR_STRENGTH = 20.0
"""The prior weighs as much as 20 rated fires of each kind (helped, did not)."""

_FLOOR = 1e-6


@dataclass(frozen=True, slots=True)
class Channel:
    """Pseudo-counts of each outcome among fires that helped and among fires that did not."""

    helped: Mapping[str, float] = field(default_factory=dict)
    failed: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def prior(cls, likelihoods: Mapping[str, tuple[float, float]], strength: float) -> Channel:
        """``strength`` fires per class distributed by ``likelihoods`` (each column normalised)."""
        if not strength > 0:
            raise ValueError(f"channel prior strength must be positive, got {strength}")
        unknown = set(likelihoods) - set(OUTCOMES)
        if unknown:
            raise ValueError(f"unknown outcome(s) {sorted(unknown)}; expected {', '.join(OUTCOMES)}")
        columns = []
        for column in (0, 1):
            values = {outcome: float(likelihoods.get(outcome, (0.0, 0.0))[column]) for outcome in OUTCOMES}
            if any(value < 0 for value in values.values()) or not sum(values.values()) > 0:
                raise ValueError("channel likelihoods must be non-negative with a positive sum per column")
            total = sum(values.values())
            columns.append({outcome: strength * value / total for outcome, value in values.items()})
        return cls(helped=columns[0], failed=columns[1])

    def plus(self, counts: Iterable[tuple[str, bool, float]]) -> Channel:
        """This channel with observed ``(outcome, helped, count)`` added."""
        helped, failed = dict(self.helped), dict(self.failed)
        for outcome, was_helped, count in counts:
            target = helped if was_helped else failed
            target[outcome] = target.get(outcome, 0.0) + count
        return Channel(helped=helped, failed=failed)

    def likelihoods(self, outcome: str) -> tuple[float, float]:
        """``P(outcome | helped)``, ``P(outcome | did not help)``."""
        total_helped = sum(max(v, 0.0) for v in self.helped.values()) or 1.0
        total_failed = sum(max(v, 0.0) for v in self.failed.values()) or 1.0
        return (
            max(self.helped.get(outcome, 0.0), _FLOOR) / total_helped,
            max(self.failed.get(outcome, 0.0), _FLOOR) / total_failed,
        )

    def share(self, outcome: str, confidence: float) -> float:
        """``P(helped | outcome)`` for a heuristic believed to help with probability ``confidence``."""
        given_helped, given_failed = self.likelihoods(outcome)
        p = min(max(confidence, _FLOOR), 1.0 - _FLOOR)
        helped = given_helped * p
        return helped / (helped + given_failed * (1.0 - p))


def counts_query(tenant: str) -> Select[tuple[str, bool, float]]:
    """The tenant's learned observations: ``(outcome, helped, count)`` rows."""
    c = learning_channel.c
    return select(c.outcome, c.helped, c.count).where(c.tenant == tenant)


def as_counts(rows: Iterable[Sequence[Any]]) -> list[tuple[str, bool, float]]:
    return [(str(outcome), bool(helped), float(count)) for outcome, helped, count in rows]


def read_counts(conn: Connection, tenant: str) -> list[tuple[str, bool, float]]:
    """The tenant's learned observations, ``(outcome, helped, count)``, inside a batch's transaction."""
    return as_counts(conn.execute(counts_query(tenant)))


async def count_observation(conn: AsyncConnection, tenant: str, changes: Iterable[tuple[str, bool, float]]) -> None:
    """Add ``(outcome, helped, ±1)`` observations in the caller's transaction.

    One row per key, in key order: two transactions that move one outcome's counts in opposite
    directions (a rating from 👎 to 👍 beside one from 👍 to 👎) take the rows' locks in the same
    order, where in the order given PostgreSQL found a deadlock and rolled one back."""
    summed: dict[tuple[str, bool], float] = defaultdict(float)
    for outcome, helped, delta in changes:
        if outcome in OUTCOMES:
            summed[(outcome, helped)] += delta
    rows = [
        {"tenant": tenant, "outcome": outcome, "helped": helped, "count": delta}
        for (outcome, helped), delta in sorted(summed.items())
        if delta != 0
    ]
    if rows:
        statement = increment(conn.dialect.name, learning_channel, ["tenant", "outcome", "helped"], "count")
        await conn.execute(statement, rows)
