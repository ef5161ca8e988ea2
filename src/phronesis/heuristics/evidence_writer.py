"""The one place a heuristic's confidence changes: a batch of evidence in the caller's transaction.

Why read-compute-write and not one ``UPDATE … SET alpha = alpha + :w``: the evidence model
is pluggable (the discounted model fades old evidence by the time since it arrived), and
decay, bounds and "take back the previous click" are arithmetic over the row. Lost updates
are prevented by locking, not by arithmetic: the rows are read ``FOR UPDATE`` in id order
on PostgreSQL (concurrent writers queue on the row, no deadlock), and on SQLite the whole
transaction already holds the single writer lock (``Database.transaction``).

A batch costs three statements whatever its size (read, ``executemany`` update,
``executemany`` insert), which is what lets one transaction apply thousands of signals
per second (``benchmarks/bench_learning.py``). It is synchronous SQLAlchemy work on one
connection: a caller's async transaction runs it with ``run_sync``, and the group commit as
one ``Database.unit`` (one thread hop for the whole transaction on a SQLite file).

Idempotency ("the same signal delivered twice counts once"): a signal may carry
a key; a key already in ``confidence_events`` — or twice in one batch — is a duplicate and
changes nothing.

Soft evidence (``EvidenceItem.outcome`` with a ``channel``): an implicit outcome is weighed
by what it says about the fire (``heuristics.channel``), ``r`` towards success and ``1 − r``
towards failure, with ``r`` computed here from the row's current confidence under the lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update

from phronesis.exceptions import NotFoundError
from phronesis.heuristics.channel import Channel
from phronesis.heuristics.confidence import Evidence, EvidenceModel, bounded
from phronesis.heuristics.models import ConfidenceUpdate
from phronesis.storage.tables import confidence_events, heuristics

__all__ = ["EvidenceItem", "EvidencePolicy", "Retraction", "apply_evidence"]

_h = heuristics.c
_STATE = [
    _h.id,
    _h.alpha,
    _h.beta,
    _h.prior_alpha,
    _h.prior_beta,
    _h.evidence_at,
    _h.signal_count,
    _h.confidence,
    _h.locked,
    _h.floor,
    _h.ceiling,
    _h.feedback_weight,
]
_WRITE = (
    update(heuristics)
    .where(_h.tenant == bindparam("w_tenant"), _h.id == bindparam("w_id"))
    .values(
        alpha=bindparam("n_alpha"),
        beta=bindparam("n_beta"),
        confidence=bindparam("n_confidence"),
        evidence_at=bindparam("n_evidence_at"),
        signal_count=bindparam("n_signal_count"),
        updated_at=bindparam("n_updated_at"),
    )
)
_LOG = insert(confidence_events)


@dataclass(frozen=True, slots=True)
class EvidencePolicy:
    """Global rules every update obeys (seed 001 F-03, F-05)."""

    bounds: tuple[float, float] | None = None
    """Optional global [min, max] confidence (F-05 [0.05, 0.95])."""
    decay_k: float = 0.0
    """F-03 diminishing returns: an explicit rating's weight × 1 / (1 + k·n), n = signals the heuristic
    already had. Seed 001 places it in ``interpret_explicit_feedback``: implicit signals keep their
    weight."""


@dataclass(frozen=True, slots=True)
class Retraction:
    """Evidence to take back first: the earlier explicit click a new one replaces, or the soft outcome
    a first rating replaces (its weight split both ways by ``helped_share``)."""

    positive: bool
    weight: float
    added_at: datetime
    helped_share: float | None = None
    """Soft evidence: the part of ``weight`` that went for success, the rest against; None: all of it
    went one way (``positive``)."""

    def parts(self) -> list[tuple[bool, float]]:
        """(positive, weight) of each direction the evidence went."""
        if self.helped_share is None:
            return [(self.positive, self.weight)]
        return [(True, self.weight * self.helped_share), (False, self.weight * (1.0 - self.helped_share))]

    def taken_from(self, evidence: Evidence, model: EvidenceModel, now: datetime) -> Evidence:
        for positive, weight in self.parts():
            evidence = model.remove(evidence, positive=positive, weight=weight, added_at=self.added_at, now=now)
        return evidence

    def put_back(self, evidence: Evidence, model: EvidenceModel, now: datetime) -> Evidence:
        for positive, weight in self.parts():
            evidence = model.restore(evidence, positive=positive, weight=weight, added_at=self.added_at, now=now)
        return evidence


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    heuristic_id: str
    positive: bool
    magnitude: float
    source: str
    key: str | None = None
    event_id: str | None = None
    fire_id: str | None = None
    details: dict[str, Any] | None = None
    retract: Retraction | None = None
    restore: Retraction | None = None
    """Evidence taken back earlier to put back after ``retract``: the soft outcome a withdrawn rating
    had replaced."""
    outcome: str | None = None
    """An implicit outcome to weigh through the channel (soft evidence) instead of as ``positive``;
    ``positive`` then only says which way it is recorded."""
    explicit: bool = False
    """A rating someone gave (``user_explicit``, ``dev``): the only kind the F-03 decay shrinks."""
    scope_only: bool = False
    """The signal taught the heuristic's scope, not its confidence (a negative outcome on an event
    unlike its examples is a wrong match, learned as a counter-example): it is recorded in the
    history with its lesson, its key is used, a rating it replaces (``retract``) is taken back, and
    nothing is added."""


def _limits(row: Any, policy: EvidencePolicy) -> tuple[float, float]:
    low, high = float(row.floor), float(row.ceiling)
    if policy.bounds is not None:
        low, high = max(low, policy.bounds[0]), min(high, policy.bounds[1])
    return low, min(max(low, high), 1.0)


def apply_evidence(
    conn: Connection,
    tenant: str,
    items: Sequence[EvidenceItem],
    *,
    model: EvidenceModel,
    policy: EvidencePolicy,
    now: datetime,
    missing_ok: bool = False,
    channel: Channel | None = None,
) -> list[ConfidenceUpdate | None]:
    """One result per item, in order: the update, or None for a missing heuristic (``missing_ok``).

    Duplicates and locked heuristics come back with ``applied=False`` and their reason in ``effect``.
    """
    if not items:
        return []
    keys = [item.key for item in items if item.key is not None]
    seen: set[str] = set()
    if keys:
        stored = conn.execute(
            select(confidence_events.c.signal_key).where(
                confidence_events.c.tenant == tenant, confidence_events.c.signal_key.in_(keys)
            )
        )
        seen = {key for (key,) in stored}
    ids = sorted({item.heuristic_id for item in items})
    query = select(*_STATE).where(_h.tenant == tenant, _h.id.in_(ids)).order_by(_h.id).with_for_update()
    rows = {row.id: row for row in conn.execute(query)}
    state: dict[str, tuple[Evidence, int, float]] = {
        hid: (
            Evidence(row.alpha, row.beta, row.prior_alpha, row.prior_beta, row.evidence_at),
            int(row.signal_count),
            float(row.confidence),
        )
        for hid, row in rows.items()
    }
    results: list[ConfidenceUpdate | None] = []
    log: list[dict[str, Any]] = []
    touched: set[str] = set()
    for item in items:
        row = rows.get(item.heuristic_id)
        if row is None:
            if missing_ok:
                results.append(None)
                continue
            raise NotFoundError("heuristic", item.heuristic_id)
        evidence, count, old = state[item.heuristic_id]
        effect = "duplicate" if item.key is not None and item.key in seen else "locked" if row.locked else None
        if effect is not None:
            results.append(_unchanged(item, evidence, old, effect))
            continue
        if item.key is not None:
            seen.add(item.key)
        step = _step(item, row, evidence, count, old, model=model, policy=policy, channel=channel, now=now)
        new, weight, details = step.new, step.weight, step.details
        if step.moved:
            state[item.heuristic_id] = (step.evidence, step.count, new)
            touched.add(item.heuristic_id)
        log.append(
            {
                "tenant": tenant,
                "heuristic_id": item.heuristic_id,
                "source": item.source,
                "positive": item.positive,
                "magnitude": item.magnitude,
                "old_confidence": old,
                "new_confidence": new,
                "created_at": now,
                "signal_key": item.key,
                "event_id": item.event_id,
                "fire_id": item.fire_id,
                "weight": weight,
                "details": details,
            }
        )
        results.append(
            ConfidenceUpdate(
                heuristic_id=item.heuristic_id,
                applied=True,
                old_confidence=old,
                new_confidence=new,
                delta=new - old,
                alpha=step.evidence.alpha,
                beta=step.evidence.beta,
                source=item.source,
                magnitude=item.magnitude,
                weight=weight,
                effect="scope" if item.scope_only else "updated",
            )
        )
    if touched:
        conn.execute(
            _WRITE,
            [
                {
                    "w_tenant": tenant,
                    "w_id": hid,
                    "n_alpha": state[hid][0].alpha,
                    "n_beta": state[hid][0].beta,
                    "n_confidence": state[hid][2],
                    "n_evidence_at": state[hid][0].evidence_at,
                    "n_signal_count": state[hid][1],
                    "n_updated_at": now,
                }
                for hid in sorted(touched)
            ],
        )
    if log:  # a scope-only signal is in the history too, with its lesson
        conn.execute(_LOG, log)
    return results


@dataclass(frozen=True, slots=True)
class _Step:
    evidence: Evidence
    count: int
    new: float
    weight: float
    details: dict[str, Any] | None
    moved: bool
    """Whether the row changes (a scope-only signal that takes nothing back leaves it as it is)."""


def _step(
    item: EvidenceItem,
    row: Any,
    evidence: Evidence,
    count: int,
    old: float,
    *,
    model: EvidenceModel,
    policy: EvidencePolicy,
    channel: Channel | None,
    now: datetime,
) -> _Step:
    """One item's effect on its heuristic's evidence: the rating it replaces taken back, then its own
    weight added (none for a scope-only signal), bounded, as the confidence to store."""
    if item.retract is not None:
        evidence = item.retract.taken_from(evidence, model, now)
    if item.restore is not None:
        evidence = item.restore.put_back(evidence, model, now)
    if item.scope_only:
        low, high = _limits(row, policy)
        moved = item.retract is not None or item.restore is not None
        new = bounded(evidence.mean, low, high) if moved else old
        return _Step(evidence, count, new, 0.0, item.details, moved)
    decay = 1.0 + policy.decay_k * count if item.explicit else 1.0
    weight = item.magnitude * float(row.feedback_weight) / decay
    evidence, details = _weigh(evidence, item, weight, model=model, channel=channel, now=now)
    low, high = _limits(row, policy)
    return _Step(evidence, count + 1, bounded(evidence.mean, low, high), weight, details, True)


def _weigh(
    evidence: Evidence,
    item: EvidenceItem,
    weight: float,
    *,
    model: EvidenceModel,
    channel: Channel | None,
    now: datetime,
) -> tuple[Evidence, dict[str, Any] | None]:
    """Add the item's evidence: hard (all of ``weight`` one way), or soft through the channel."""
    if item.outcome is None or channel is None:
        return model.add(evidence, positive=item.positive, weight=weight, now=now), item.details
    share = channel.share(item.outcome, evidence.mean)
    evidence = model.add(evidence, positive=True, weight=weight * share, now=now)
    evidence = model.add(evidence, positive=False, weight=weight * (1.0 - share), now=now)
    return evidence, {**(item.details or {}), "helped_share": round(share, 6)}


def _unchanged(item: EvidenceItem, evidence: Evidence, confidence: float, effect: str) -> ConfidenceUpdate:
    return ConfidenceUpdate(
        heuristic_id=item.heuristic_id,
        applied=False,
        old_confidence=confidence,
        new_confidence=confidence,
        delta=0.0,
        alpha=evidence.alpha,
        beta=evidence.beta,
        source=item.source,
        magnitude=item.magnitude,
        weight=0.0,
        effect=effect,
    )
