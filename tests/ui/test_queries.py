"""The dashboard's aggregates on every backend (issue 25): per-day buckets, breakdowns, LLM
calls avoided, latency percentiles and keyset pages are SQL, and SQL differs by dialect."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.storage.database import Database
from phronesis.testing import FixedClock
from phronesis.ui.queries import DashboardQueries, DecisionFilter

NOW = datetime(2026, 11, 26, 15, 0, tzinfo=UTC)


async def _seed(database: Database) -> None:
    clock = FixedClock(NOW - timedelta(days=2, hours=14))  # 2026-11-24 01:00
    records = DecisionRecordRepository(database, clock=clock)
    for i in range(1, 101):  # latencies 1..100 ms, spread over three days
        await records.write(
            NewDecisionRecord(
                id=f"r{i:03}",
                tenant="t",
                kind="routing",
                path="llm" if i % 10 == 0 else "local",
                action="RETRIEVE" if i % 2 else "CLARIFY",
                llm_calls=1 if i % 10 == 0 else 0,
                prompt_tokens=100 if i % 10 == 0 else None,
                latency_ms=float(i),
                subject_id=f"session-{i % 3}",
                reason="found the pricing document" if i == 7 else None,
            )
        )
        clock.advance(minutes=40)
    await records.write(NewDecisionRecord(id="other", tenant="u", kind="routing", path="local", action="RETRIEVE"))
    earlier = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=30)))
    await earlier.write(NewDecisionRecord(id="old", tenant="t", kind="routing", path="local", action="RETRIEVE"))


async def test_the_overview_aggregates_one_tenants_window(database: Database) -> None:
    await _seed(database)
    overview = await DashboardQueries(database).overview("t", NOW, 3)
    assert overview.days == ["2026-11-24", "2026-11-25", "2026-11-26"]
    # 01:00 on the 24th, every 40 minutes: 35 that day, 36 the next, 29 on the 26th (the old one is outside)
    assert overview.per_day == {"routing": [35, 36, 29]}
    assert overview.by_path == {"routing": [("llm", 10), ("local", 90)]}
    assert overview.by_action == {"routing": [("CLARIFY", 50), ("RETRIEVE", 50)]}
    [routing] = overview.kinds
    assert (routing.decisions, routing.llm_calls, routing.without_llm, routing.prompt_tokens) == (100, 10, 90, 1000)
    assert (routing.p50_ms, routing.p99_ms) == (50.0, 100.0)  # the upper bounds of their buckets


async def test_the_explorer_filters_and_pages_without_repeating_a_row(database: Database) -> None:
    await _seed(database)
    queries = DashboardQueries(database)
    seen: list[str] = []
    before = None
    while True:
        page = await queries.decisions("t", DecisionFilter(), limit=40, before=before)
        seen += [r.id for r in page]
        if len(page) < 40:
            break
        before = (page[-1].created_at, page[-1].id)
    assert len(seen) == len(set(seen)) == 101 and seen[0] == "r100" and seen[-1] == "old"
    found = await queries.decisions("t", DecisionFilter(text="PRICING"), limit=10)
    assert [r.id for r in found] == ["r007"]
    subject = await queries.decisions("t", DecisionFilter(subject="session-1", path="llm", action="CLARIFY"), limit=50)
    assert [r.id for r in subject] == ["r100", "r070", "r040", "r010"]
    window = DecisionFilter(since=NOW - timedelta(days=40), until=NOW - timedelta(days=20))
    assert [r.id for r in await queries.decisions("t", window, limit=10)] == ["old"]
    assert await queries.decisions("u", DecisionFilter(kind="admission"), limit=10) == []


async def test_calibration_bins_rated_decisions_by_confidence(database: Database) -> None:
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(hours=1)))
    rated: list[tuple[float, str | None]] = [
        (0.5, "correct"),
        (0.55, "correct"),
        (0.6, "incorrect"),
        (0.65, "correct"),
        (1.0, "correct"),
    ]
    rated += [(0.2, "positive"), (0.25, "negative"), (0.9, "neutral"), (0.9, None)]  # neutral, unrated: left out
    for n, (confidence, outcome) in enumerate(rated):
        kind = "executive" if outcome in ("positive", "negative", "neutral") else "routing"
        await records.write(NewDecisionRecord(id=f"c{n}", tenant="t", kind=kind, path="local", confidence=confidence))
        if outcome is not None:
            await records.set_outcome("t", f"c{n}", outcome)
    found = {r.kind: r for r in await DashboardQueries(database).calibration("t", NOW - timedelta(days=1))}
    routing = found["routing"]
    assert [(b.low, b.decisions, b.observed) for b in routing.bins] == [(0.5, 2, 1.0), (0.6, 2, 0.5), (0.9, 1, 1.0)]
    assert routing.bins[0].predicted == pytest.approx(0.525) and routing.rated == 5
    assert routing.ece == pytest.approx((2 * 0.475 + 2 * 0.125 + 1 * 0.0) / 5)
    executive = found["executive"]
    assert [(b.low, b.decisions, b.observed) for b in executive.bins] == [(0.2, 2, 0.5)]


async def test_route_confusion_reads_what_feedback_said_it_should_have_been(database: Database) -> None:
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(hours=1)))
    ratings = [
        ("RETRIEVE", None),
        ("RETRIEVE", "CLARIFY"),
        ("USE_TOOL", None),
        ("ESCALATE", "USE_TOOL"),
        ("CLARIFY", ""),
    ]
    for n, (decided, should) in enumerate(ratings):
        await records.write(NewDecisionRecord(id=f"q{n}", tenant="t", kind="routing", path="local", action=decided))
        if should != "":  # the last one is never rated
            said = {"correct": should is None, "expected_decision": should}
            await records.rate("t", f"q{n}", "route_feedback", said, correct=should is None)
    confusion = await DashboardQueries(database).route_confusion("t", NOW - timedelta(days=1))
    assert sorted(confusion) == [
        ("ESCALATE", "USE_TOOL", 1),
        ("RETRIEVE", "CLARIFY", 1),
        ("RETRIEVE", "RETRIEVE", 1),
        ("USE_TOOL", "USE_TOOL", 1),
    ]


async def test_text_search_reads_what_a_decision_was_given_and_outcome_filters_ratings(database: Database) -> None:
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(hours=1)))
    await records.write(NewDecisionRecord(id="a", tenant="t", kind="routing", path="local", action="RETRIEVE",
                                        inputs={"query": "What is your Refund policy?"}))  # fmt: skip
    await records.write(NewDecisionRecord(id="b", tenant="t", kind="routing", path="local", action="RETRIEVE"))
    await records.set_outcome("t", "b", "correct")
    queries = DashboardQueries(database)
    assert [r.id for r in await queries.decisions("t", DecisionFilter(text="refund"), limit=10)] == ["a"]
    assert [r.id for r in await queries.decisions("t", DecisionFilter(outcome="correct"), limit=10)] == ["b"]
