"""What the dashboard's pages show, aggregated in SQL over one tenant's decision records.

The overview groups the hourly rollups (``audit.rollups``) with the last hours' records, in
SQL; the explorer reads one page of records by the ``(tenant, kind, created_at)`` index, keyset
paged. Nothing walks all the records in Python (pages in milliseconds over a million).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, get_args

from sqlalchemy import Integer, String, and_, case, cast, func, literal_column, or_, select

from phronesis.audit.models import DecisionKind, DecisionRecord
from phronesis.audit.rollups import CATEGORICAL, DecisionRollups, hour_of, percentile_bound
from phronesis.proactive.prefilter import PREFILTER_REASONS
from phronesis.routing.route_feedback import should_have_been
from phronesis.storage.database import Database
from phronesis.storage.filters import where_given
from phronesis.storage.tables import (
    admission_runs,
    confidence_events,
    decision_records,
    feedback,
    heuristics,
    proactive_sends,
)
from phronesis.ui.graphs import RunNode

__all__ = ["Calibration", "CalibrationBin", "DashboardQueries", "DecisionFilter", "KindSummary", "Overview"]

c = decision_records.c

KINDS: tuple[str, ...] = get_args(DecisionKind)


@dataclass(frozen=True, slots=True)
class KindSummary:
    kind: str
    decisions: int
    llm_calls: int
    """Requests sent to the LLM (records older than the count, migration 0009, add nothing)."""
    prompt_tokens: int
    completion_tokens: int
    without_llm: int
    """Decisions made with no LLM call: each one an always-LLM agent would have paid for."""
    p50_ms: float | None
    """The upper bound of the latency bucket holding the median (``audit.rollups``)."""
    p99_ms: float | None


@dataclass(slots=True)
class Overview:
    since: datetime
    days: list[str]
    per_day: dict[str, list[int]] = field(default_factory=dict)
    """kind → decisions per day, aligned with ``days``."""
    by_path: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    by_action: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    reasons: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    """kind → why, most frequent first: proactive's block reasons, routing's escalation reasons."""
    kinds: list[KindSummary] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class CalibrationBin:
    low: float
    high: float
    decisions: int
    predicted: float
    """Mean confidence of the bin's decisions."""
    observed: float
    """Share of them rated a success."""


@dataclass(frozen=True, slots=True)
class Calibration:
    kind: str
    bins: list[CalibrationBin]
    rated: int
    ece: float
    """Expected calibration error: the bins' |observed − predicted|, weighted by their sizes."""


SUCCESS = ("positive", "correct", "engaged", "button_click")
FAILURE = ("negative", "incorrect", "ignored")
"""Outcomes that rate a decision: executive feedback, routing and admission ratings, and a
proactive send's feedback (seed 004 §5: engaged or a button press; ignored or pushed back)."""
BINS = 10


@dataclass(frozen=True, slots=True)
class DecisionFilter:
    kind: str | None = None
    path: str | None = None
    action: str | None = None
    outcome: str | None = None
    subject: str | None = None
    text: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    reason: str | None = None


def _explains(kind: str, outcome: str, path: str) -> bool:
    """Whether a record's reason says why it went this way: a proactive cycle that did not send
    (its block reason), a routing escalation (its escalation reason), an executive decision that
    took no action (why: no LLM, not immediate, a threat nothing answers)."""
    return (
        (kind == "proactive" and outcome != "sent")
        or (kind == "routing" and outcome == "ESCALATE")
        or (kind == "executive" and path in ("rejected", "fallback"))
    )


class DashboardQueries:
    def __init__(self, database: Database) -> None:
        self._db = database
        self._rollups = DecisionRollups(database)

    async def overview(self, tenant: str, now: datetime, days: int) -> Overview:
        since = (now - timedelta(days=days - 1)).replace(hour=0, minute=0, second=0, microsecond=0)
        labels = [(since + timedelta(days=i)).strftime("%Y-%m-%d") for i in range(days)]
        out = Overview(since=since, days=labels)
        until = await self._rollups.ensure(tenant, now)
        g = self._rollups.combined(tenant, since, until).c
        first_day = hour_of(since) // 24
        day = (g.hour // 24).label("day")
        # one pass over the rollups, grouped by day: at most days × the kinds' paths and outcomes
        # rows (about 1,700 for 30 days), which the figures below are summed from
        daily = select(
            g.kind,
            day,
            g.path,
            g.outcome,
            g.reason,
            func.sum(g.decisions),
            func.sum(g.llm_calls),
            func.sum(g.prompt_tokens),
            func.sum(g.completion_tokens),
            func.sum(g.without_llm),
        ).group_by(g.kind, day, g.path, g.outcome, g.reason)
        t = self._rollups.combined_latency(tenant, since, until).c
        latency = select(t.kind, t.bucket, func.sum(t.decisions)).group_by(t.kind, t.bucket)
        async with self._db.connect() as conn:
            rows = list(await conn.execute(daily))
            buckets: dict[str, dict[int, int]] = {}
            for kind, bucket, count in await conn.execute(latency):
                buckets.setdefault(kind, {})[int(bucket)] = int(count)
        paths: dict[str, Counter[str]] = {}
        actions: dict[str, Counter[str]] = {}
        reasons: dict[str, Counter[str]] = {}
        sums: dict[str, list[int]] = {}
        for kind, day_number, path, outcome, reason, count, calls, prompt, completion, without in rows:
            count = int(count)
            series = out.per_day.setdefault(kind, [0] * len(labels))
            if 0 <= day_number - first_day < len(labels):
                series[day_number - first_day] += count
            paths.setdefault(kind, Counter())[path] += count
            if kind in CATEGORICAL:
                actions.setdefault(kind, Counter())[outcome or "none"] += count
            if reason and _explains(kind, outcome, path):
                reasons.setdefault(kind, Counter())[reason] += count
            total = sums.setdefault(kind, [0, 0, 0, 0, 0])
            for i, value in enumerate((count, calls, prompt, completion, without)):
                total[i] += int(value)
        out.by_path = {kind: sorted(counts.items()) for kind, counts in sorted(paths.items())}
        out.by_action = {kind: sorted(counts.items()) for kind, counts in sorted(actions.items())}
        out.reasons = {kind: sorted(n.items(), key=lambda kv: (-kv[1], kv[0])) for kind, n in reasons.items()}
        for kind in sorted(sums):
            count, calls, prompt, completion, without = sums[kind]
            latency_counts = buckets.get(kind, {})
            p50, p99 = percentile_bound(latency_counts, 0.5), percentile_bound(latency_counts, 0.99)
            out.kinds.append(KindSummary(kind, count, calls, prompt, completion, without, p50, p99))
        return out

    async def decisions(
        self, tenant: str, where: DecisionFilter, *, limit: int, before: tuple[datetime, str] | None = None
    ) -> list[DecisionRecord]:
        """Newest first, ``limit`` at a time; ``before`` is the last row of the previous page
        (keyset paging: page 1,000 costs what page 1 does)."""
        equal = (
            (c.kind, where.kind),
            (c.path, where.path),
            (c.action, where.action),
            (c.outcome, where.outcome),
            (c.subject_id, where.subject),
            (c.reason, where.reason),
        )
        query = where_given(
            select(decision_records).where(c.tenant == tenant),
            equal,
            created_at=c.created_at,
            since=where.since,
            until=where.until,
        )
        if where.text:
            pattern = f"%{where.text.lower()}%"
            query = query.where(
                or_(
                    func.lower(c.action).like(pattern),
                    func.lower(c.reason).like(pattern),
                    func.lower(c.subject_id).like(pattern),
                    # what the decision was given: the event, the user's query, the run's task
                    func.lower(cast(c.inputs, String)).like(pattern),
                )
            )
        if before is not None:
            at, record_id = before
            query = query.where(or_(c.created_at < at, and_(c.created_at == at, c.id > record_id)))
        query = query.order_by(c.created_at.desc(), c.id).limit(limit)
        async with self._db.connect() as conn:
            return [DecisionRecord.model_validate(dict(row._mapping)) for row in await conn.execute(query)]

    async def feedback_for(self, tenant: str, record_id: str) -> list[dict[str, Any]]:
        f = feedback.c
        query = (
            select(f.score, f.scale, f.source, f.effect, f.comment, f.heuristic_id, f.created_at)
            .where(f.tenant == tenant, f.response_id == record_id)
            .order_by(f.created_at)
        )
        async with self._db.connect() as conn:
            return [dict(row._mapping) for row in await conn.execute(query)]

    async def heuristics(self, tenant: str, *, limit: int, offset: int) -> list[dict[str, Any]]:
        """The tenant's heuristics, most confident first (the ``(tenant, …)`` primary key bounds it)."""
        h = heuristics.c
        query = (
            select(
                h.id,
                h.name,
                h.domain,
                h.condition_text,
                h.action_text,
                h.confidence,
                h.fire_count,
                h.success_count,
                h.failure_count,
                h.origin,
                h.locked,
                h.signal_count,
                h.last_fired_at,
                h.created_at,
            )
            .where(h.tenant == tenant)
            .order_by(h.confidence.desc(), h.id)
            .limit(limit)
            .offset(offset)
        )
        async with self._db.connect() as conn:
            return [dict(row._mapping) for row in await conn.execute(query)]

    async def confidence_history(self, tenant: str, heuristic_id: str, *, limit: int = 500) -> list[dict[str, Any]]:
        """The last ``limit`` signals that moved a heuristic's confidence, oldest first."""
        e = confidence_events.c
        query = (
            select(
                e.id,
                e.source,
                e.positive,
                e.magnitude,
                e.weight,
                e.old_confidence,
                e.new_confidence,
                e.event_id,
                e.fire_id,
                e.created_at,
                e.details,
            )
            .where(e.tenant == tenant, e.heuristic_id == heuristic_id)
            .order_by(e.created_at.desc(), e.id.desc())
            .limit(limit)
        )
        async with self._db.connect() as conn:
            rows = [dict(row._mapping) for row in await conn.execute(query)]
        return rows[::-1]

    async def calibration(self, tenant: str, since: datetime) -> list[Calibration]:
        """Reliability per decision point: rated decisions (an outcome of success or failure, from
        feedback) binned by their confidence, in SQL over the rated-records index."""
        rated = and_(
            c.tenant == tenant,
            c.created_at >= since,
            c.outcome.in_(SUCCESS + FAILURE),
            c.confidence.is_not(None),
        )
        scaled = c.confidence * BINS
        # floor: PostgreSQL's cast rounds (5.5 → 6), SQLite's truncates (which, for a confidence, floors)
        raw = cast(func.floor(scaled) if self._db.dialect == "postgresql" else scaled, Integer)
        bin_ = case((raw >= BINS, BINS - 1), (raw < 0, 0), else_=raw).label("bin")
        query = (
            select(
                c.kind,
                bin_,
                func.count(),
                func.avg(c.confidence),
                func.count().filter(c.outcome.in_(SUCCESS)),
            )
            .where(rated)
            .group_by(c.kind, literal_column("bin"))
            .order_by(c.kind, literal_column("bin"))
        )
        by_kind: dict[str, list[CalibrationBin]] = {}
        async with self._db.connect() as conn:
            for kind, number, count, mean, successes in await conn.execute(query):
                by_kind.setdefault(kind, []).append(
                    CalibrationBin(number / BINS, (number + 1) / BINS, int(count), float(mean), successes / count)
                )
        out = []
        for kind, bins in by_kind.items():
            total = sum(b.decisions for b in bins)
            ece = sum(b.decisions / total * abs(b.observed - b.predicted) for b in bins)
            out.append(Calibration(kind, bins, total, ece))
        return out

    async def route_confusion(self, tenant: str, since: datetime) -> list[tuple[str, str, int]]:
        """(decided, should have been, count) over the routing decisions users rated (route
        feedback): a right one counts on the diagonal. SQL over the rated-records index."""
        truth = func.coalesce(should_have_been(), "?").label("truth")
        query = (
            select(c.action, truth, func.count())
            .where(
                c.tenant == tenant,
                c.kind == "routing",
                c.created_at >= since,
                c.outcome.in_(("correct", "incorrect")),
            )
            .group_by(c.action, literal_column("truth"))
        )
        async with self._db.connect() as conn:
            return [(str(action), str(should), int(n)) for action, should, n in await conn.execute(query)]

    async def engagement(self, tenant: str, since: datetime) -> dict[str, dict[str, int]]:
        """category → feedback outcome → sends, for the sends since ``since``."""
        p = proactive_sends.c
        query = (
            select(p.category, p.outcome, func.count())
            .where(p.tenant == tenant, p.sent_at >= since, p.delivery_status == "sent")
            .group_by(p.category, p.outcome)
        )
        out: dict[str, dict[str, int]] = {}
        async with self._db.connect() as conn:
            for category, outcome, n in await conn.execute(query):
                out.setdefault(category, {})[outcome] = int(n)
        return out

    async def run_nodes(self, tenant: str, run_ids: set[str], *, most: int = 200) -> list[RunNode]:
        """The runs ``run_ids`` and the other members of their merge groups (at most ``most``):
        by the primary key and the group index, a few dozen rows."""
        r = admission_runs.c
        columns = (r.id, r.task, r.status, r.superseded_by, r.merge_group, r.canonical, r.created_at)
        async with self._db.connect() as conn:
            named = (await conn.execute(select(*columns).where(r.tenant == tenant, r.id.in_(run_ids)))).all()
            groups = {row.merge_group for row in named if row.merge_group}
            members: list[Any] = []
            if groups:
                query = select(*columns).where(r.tenant == tenant, r.merge_group.in_(groups)).limit(most)
                members = list((await conn.execute(query)).all())
        unique = {row.id: row for row in [*named, *members]}
        return [RunNode(*row) for row in list(unique.values())[:most]]


def funnel(daily: dict[str, dict[str, int]]) -> list[tuple[str, int]]:
    """Seed 004's funnel from the tenant's daily counters (``proactive.counters``): users due a
    cycle, past the pre-filter, with a candidate, sent, engaged."""
    totals: Counter[str] = Counter()
    for names in daily.values():
        totals.update(names)
    due = sum(n for name, n in totals.items() if name.startswith("cycle:"))
    passed = due - sum(totals[f"cycle:{reason}"] for reason in PREFILTER_REASONS) - totals["cycle:error"]
    candidates = passed - totals["cycle:no_candidates"]
    sent = totals["cycle:sent"] + totals["cycle:explored"]
    engaged = totals["feedback:engaged"] + totals["feedback:button_click"]
    return [
        ("due", due),
        ("passed pre-filter", passed),
        ("with a candidate", candidates),
        ("sent", sent),
        ("engaged", engaged),
    ]
