"""Replaying the urgency design's cut-offs on synthetic logs whose ground truth is known, decided
by the real ``UrgencyTieredStrategy`` (its soon tier draws with known chances), and a tenant's
own cut-off holding for its next decision (issue 25)."""

from __future__ import annotations

import random
from datetime import timedelta

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.executive.config import StrategyConfig
from phronesis.executive.records import executive_record
from phronesis.executive.types import DecisionContext, HeuristicCandidate
from phronesis.executive.urgency_tiered import Cutoffs, UrgencyTieredStrategy
from phronesis.replay import ReplayIn, run_replay
from phronesis.replay.executive import REST
from phronesis.replay.urgency import load_tiered, replay_tiered_rows
from phronesis.storage.database import Database
from phronesis.tenant_settings import ApplyIn
from phronesis.testing import FixedClock
from tests.engines import EngineFactory
from tests.replay.test_executive_replay import NOW

SUCCESS = {"h0": 0.9, "h1": 0.7, "h2": 0.4, "h3": 0.2}
"""Each heuristic's true success rate: what feedback says, whatever it scores."""
REST_SUCCESS = 0.5
Event = tuple[float, list[HeuristicCandidate]]


def _events(n: int, seed: int = 4) -> list[Event]:
    """Soon-tier events (urgency 0.3-0.7) whose candidates are all confident: at least one above
    0.8 similar, others 0.7-0.8 (a reasonable match at 0.7, not at 0.8)."""
    rng = random.Random(seed)
    events = []
    for _ in range(n):
        names = rng.sample(sorted(SUCCESS), rng.randint(2, 3))
        sims = [rng.uniform(0.8, 1.0)] + [rng.uniform(0.7, 1.0) for _ in names[1:]]
        events.append(
            (
                rng.uniform(0.3, 0.69),
                [
                    HeuristicCandidate(
                        heuristic_id=name,
                        condition_text=f"when {name}",
                        suggested_action=f"do {name}",
                        confidence=rng.uniform(0.75, 0.95),
                        similarity=round(sim, 3),
                    )  # fmt: skip
                    for name, sim in zip(names, sims, strict=True)
                ],
            )
        )
    return events


async def _log(database: Database, events: list[Event]) -> None:
    rng = random.Random(8)
    ids = iter(range(10**9))
    strategy = UrgencyTieredStrategy(StrategyConfig(), rng=random.Random(9), new_id=lambda: f"d{next(ids)}")
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    async with database.transaction() as conn:
        for i, (urgency, candidates) in enumerate(events):
            context = DecisionContext(
                event_id=f"e{i}", event_text="an event", candidates=candidates, urgency=urgency, base_threshold=0.7
            )
            result = await strategy.decide(context, llm=None)
            await records.write(executive_record("t", context, result, strategy.name, None, 1.0), into=conn)
            success = SUCCESS.get(result.matched_heuristic_id or "", REST_SUCCESS)
            outcome = "positive" if rng.random() < success else "negative"
            await records.set_outcome("t", result.response_id, outcome, connection=conn)


async def test_snips_recovers_a_narrower_pools_true_success_within_its_interval(database: Database) -> None:
    """``reasonable_similarity`` raised to 0.8: the soon tier draws among fewer heuristics. Every
    choice the replayed policy makes was one the logged draw could make, so IPS and SNIPS cover
    every decision and recover the true success of the replayed draws."""
    events = _events(3000)
    await _log(database, events)
    rows = await load_tiered(database, "t", NOW - timedelta(days=30))
    assert len(rows) == 3000
    report = replay_tiered_rows(rows, 0.8, current=0.7, parameter="urgency.reasonable_similarity")
    replayed = Cutoffs().replace("reasonable_similarity", 0.8)
    truth = sum(
        sum(chance * SUCCESS.get(choice, REST_SUCCESS) for choice, chance in row.tiered(replayed).items())
        for row in rows
    ) / len(rows)
    assert report.snips is not None and report.ips is not None and report.snips.coverage == 1.0
    for estimate in (report.ips, report.snips):
        assert estimate.interval is not None
        assert estimate.interval[0] <= truth <= estimate.interval[1], (estimate, truth)
    # a change: another policy for the event, unless it surely makes the logged draw again
    changed = [
        row for row in rows if row.tiered(replayed) != row.logged and row.tiered(replayed).get(row.choice) != 1.0
    ]
    assert report.changed == len(changed) > 0
    assert report.coverage < 1.0  # the direct estimate sees only events whose draw did not change


async def test_a_lower_soon_tier_start_is_decided_without_a_draw(database: Database) -> None:
    """``immediate_min`` lowered to 0.3: every logged soon-tier event becomes immediate and fires
    its best reasonable match surely; where that was the drawn one, its outcome is known."""
    events = _events(400)
    await _log(database, events)
    rows = await load_tiered(database, "t", NOW - timedelta(days=30))
    report = replay_tiered_rows(rows, 0.3, current=0.7, parameter="urgency.immediate_min")
    sure = Cutoffs().replace("immediate_min", 0.3)
    known = sum(1 for row in rows if row.tiered(sure).get(row.choice) == 1.0)
    assert all(len(row.tiered(sure)) == 1 and REST not in row.tiered(sure) for row in rows)
    assert report.replayed_success.covered == known and report.coverage == known / 400
    assert report.llm_calls_logged == report.llm_calls_replayed == 0


async def test_a_tenants_cut_off_holds_for_its_next_decision(make_engine: EngineFactory) -> None:
    """Applied (``executive.urgency.soon_min``), the cut-off is read at the next decision: an event
    of urgency 0.4 is no longer in the soon tier, and the record keeps the cut-offs it used."""
    engine = await make_engine()
    known = {"heuristic_id": "h0", "condition_text": "the greenhouse door is open", "suggested_action": "close it"}
    event = {
        "urgency": 0.4,
        "strategy": "urgency_tiered",
        "candidates": [known | {"confidence": 0.9, "similarity": 0.9}],
    }
    first = await engine.decide_event("the greenhouse door is open", **event)
    await engine.tenant_settings.apply("default", "executive.urgency.soon_min", ApplyIn(value=0.5))
    second = await engine.decide_event("the greenhouse door is open", **event)
    before, after = [await engine.decisions.get("default", d.response_id) for d in (first, second)]
    assert (before.attributes["tier"], after.attributes["tier"]) == ("soon", "not_urgent")
    assert after.attributes["cutoffs"]["soon_min"] == 0.5
    body = ReplayIn(decision_point="executive", parameter="urgency.soon_min", value=0.3)
    report = await run_replay(engine, "default", body)
    assert (report.parameter, report.current, report.decisions) == ("urgency.soon_min", 0.5, 2)
