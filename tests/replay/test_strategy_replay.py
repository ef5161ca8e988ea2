"""Replaying the executive's strategy itself (``executive.strategy``) on synthetic logs whose
ground truth is known, decided by the real strategies (heuristic_first with Thompson exploration,
urgency_tiered with its soon-tier draws, always_llm with a scripted LLM), and a tenant's applied
strategy deciding its next event (issue 25)."""

from __future__ import annotations

import random
from datetime import timedelta

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.executive.factory import create_decision_strategy
from phronesis.executive.records import executive_record
from phronesis.executive.types import DecisionContext, HeuristicCandidate
from phronesis.executive.urgency_tiered import Cutoffs
from phronesis.llm.types import LLMProvider
from phronesis.replay import ReplayIn, run_replay
from phronesis.replay.executive import REST
from phronesis.replay.strategy import Strategies, load_strategies, policy_under, replay_strategy_rows
from phronesis.replay.tune import TuneIn, tune
from phronesis.storage.database import Database
from phronesis.tenant_settings import ApplyIn
from phronesis.testing import FixedClock
from tests.engines import EngineFactory
from tests.executive.conftest import answering
from tests.replay.test_executive_replay import NOW

SUCCESS = {"h0": 0.9, "h1": 0.75, "h2": 0.4, "h3": 0.2}
"""Each heuristic's true success rate: what feedback says, whatever its confidence claims."""
REST_SUCCESS = 0.5
"""Not firing: the LLM's answer (or a rejection), rated right half the time."""


def _candidate(name: str, rng: random.Random, confidence: tuple[float, float]) -> HeuristicCandidate:
    c = rng.uniform(*confidence)
    return HeuristicCandidate(
        heuristic_id=name,
        condition_text=f"when {name}",
        suggested_action=f"do {name}",
        confidence=c,
        similarity=round(rng.uniform(0.72, 1.0), 3),
        alpha=c * 8,
        beta=(1 - c) * 8,
    )


def _contexts(n: int, seed: int, confidence: tuple[float, float]) -> list[DecisionContext]:
    rng = random.Random(seed)
    contexts = []
    for i in range(n):
        names = rng.sample(sorted(SUCCESS), rng.randint(1, 3))
        candidates = sorted((_candidate(x, rng, confidence) for x in names), key=lambda x: -(x.similarity or 0))
        contexts.append(
            DecisionContext(
                event_id=f"e{i}",
                event_text="an event",
                candidates=candidates,
                urgency=rng.uniform(0.0, 1.0),
                base_threshold=0.7,
            )
        )
    return contexts


async def _log(
    database: Database,
    contexts: list[DecisionContext],
    strategy: str,
    *,
    llm: LLMProvider | None = None,
    exploration: float = 0.0,
    rated: float = 1.0,
) -> None:
    rng = random.Random(8)
    decide = create_decision_strategy(strategy, exploration_rate=exploration, rng=random.Random(9))
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    async with database.transaction() as conn:
        for context in contexts:
            result = await decide.decide(context, llm)
            await records.write(executive_record("t", context, result, strategy, None, 1.0), into=conn)
            if rng.random() < rated:
                success = SUCCESS.get(result.matched_heuristic_id or "", REST_SUCCESS)
                if result.path.value != "heuristic":
                    success = REST_SUCCESS
                outcome = "positive" if rng.random() < success else "negative"
                await records.set_outcome("t", result.response_id, outcome, connection=conn)


def _truth(loaded: Strategies, strategy: str, rows: list[int] | None = None) -> float:
    """The replayed strategy's true success, over ``rows`` (all)."""
    picked = [loaded.rows[i] for i in rows] if rows is not None else loaded.rows
    return sum(
        sum(
            chance * SUCCESS.get(choice, REST_SUCCESS)
            for choice, chance in policy_under(row, strategy, loaded.cutoffs).items()
        )
        for row in picked
    ) / len(picked)


async def test_snips_recovers_each_strategys_true_success_on_explored_logs(database: Database) -> None:
    """Heuristic-first logs with exploration on, no candidate confident enough to fire: every
    decision was randomised with recorded chances. Replayed as always_llm (never fire) and as
    urgency_tiered (fire by tier), SNIPS recovers each strategy's true success within its
    interval, on the decisions the logging policy could have decided as the replayed one does."""
    await _log(database, _contexts(3000, 4, (0.45, 0.69)), "heuristic_first", exploration=0.6)
    loaded = await load_strategies(database, "t", NOW - timedelta(days=30), Cutoffs())
    assert len(loaded.rows) == 3000
    for strategy in ("always_llm", "urgency_tiered"):
        report = replay_strategy_rows(loaded, strategy, current="heuristic_first")
        assert report.snips is not None and report.snips.interval is not None
        supported = [
            i
            for i, row in enumerate(loaded.rows)
            if all(row.logged.get(choice, 0.0) > 0.0 for choice in policy_under(row, strategy, loaded.cutoffs))
        ]
        assert report.snips.decisions == len(supported) and report.snips.coverage > 0.5, strategy
        truth = _truth(loaded, strategy, supported)
        assert report.snips.interval[0] <= truth <= report.snips.interval[1], (strategy, report.snips, truth)
    # the tiers fire where heuristic_first would not: an immediate event's confident, close match
    tiered = replay_strategy_rows(loaded, "urgency_tiered", current="heuristic_first")
    immediate = [
        row
        for row in loaded.rows
        if row.choice == REST
        and row.urgency >= 0.7
        and any(x.confidence >= 0.7 - 0.3 * row.urgency and (x.similarity or 0) >= 0.7 for x in row.candidates)
    ]
    assert len(immediate) > 100 and tiered.changed >= len(immediate)
    assert abs(_truth(loaded, "urgency_tiered") - REST_SUCCESS) > 0.02  # a truth the estimate must find
    always = replay_strategy_rows(loaded, "always_llm", current="heuristic_first")
    assert always.snips is not None and always.snips.coverage == 1.0  # not exploring had a chance everywhere
    # the direct estimate covers the decisions that did not fire: always_llm decides them alike
    fired = sum(1 for row in loaded.rows if row.choice != REST)
    assert always.changed == fired > 0 and always.replayed_success.covered == 3000 - fired


async def test_heuristic_first_on_always_llm_logs_avoids_calls_and_does_not_guess(database: Database) -> None:
    """Always-LLM logs (the seed's A/B baseline), a scripted LLM answering: replayed as
    heuristic_first, every event with a confident candidate fires it instead. Those save the
    calls their LLM decision made; their outcome under the heuristic is not in the logs, so the
    estimate covers only the events that would still go to the LLM, and says so."""
    contexts = _contexts(400, 5, (0.4, 0.95))
    await _log(database, contexts, "always_llm", llm=answering("Handle it."))
    loaded = await load_strategies(database, "t", NOW - timedelta(days=30), Cutoffs())
    report = replay_strategy_rows(loaded, "heuristic_first", current="always_llm")
    confident = [c for c in contexts if any(x.confidence >= 0.7 for x in c.candidates)]
    assert report.changed == len(confident) > 0
    per_decision = loaded.rows[0].llm_calls
    assert per_decision == 2  # the answer and the success prediction
    assert report.llm_calls_logged == 400 * per_decision
    assert report.llm_calls_replayed == (400 - len(confident)) * per_decision
    assert report.replayed_success.covered == 400 - len(confident)
    assert report.coverage == (400 - len(confident)) / 400
    assert report.ips is None and report.snips is None and "only the direct estimate" in report.weighting
    (change, *_) = report.changes
    assert change.logged.startswith("always_llm: ") and change.replayed.startswith("heuristic ")
    # and back: always_llm replayed on the same logs is no change at all
    same = replay_strategy_rows(loaded, "always_llm", current="always_llm")
    assert same.changed == 0 and same.llm_calls_replayed == same.llm_calls_logged


async def test_always_llm_on_heuristic_first_logs_adds_the_llm_path_each_fire_avoided(database: Database) -> None:
    """The other way: heuristic-first logs with an LLM; always_llm would send every fire to the LLM,
    at what the window's LLM decisions paid per decision."""
    contexts = _contexts(200, 6, (0.4, 0.95))
    await _log(database, contexts, "heuristic_first", llm=answering("Handle it."))
    loaded = await load_strategies(database, "t", NOW - timedelta(days=30), Cutoffs())
    fired = sum(1 for row in loaded.rows if row.choice != REST)
    report = replay_strategy_rows(loaded, "always_llm", current="heuristic_first")
    assert report.changed == fired > 0
    assert report.llm_calls_replayed == report.llm_calls_logged + 2 * fired


async def test_tune_over_the_strategies_and_a_tenants_strategy_decides_its_next_event(
    make_engine: EngineFactory,
) -> None:
    """``tune`` replays each strategy; the proposal applied (``executive.strategy``), the tenant's
    next event is decided by it, recorded with what chose it; an event's own strategy still wins."""
    engine = await make_engine(llm=answering("Open the window."))
    known = {"heuristic_id": "h0", "condition_text": "the room is warm", "suggested_action": "open the window"}
    event = {"candidates": [known | {"confidence": 0.9, "similarity": 0.9}]}
    first = await engine.decide_event("the room is warm", **event)
    assert (first.strategy, first.decision_path) == ("heuristic_first", "heuristic")
    tuned = await tune(engine, "default", TuneIn(decision_point="executive", parameter="strategy"))
    assert [row.value for row in tuned.rows] == ["heuristic_first", "always_llm", "urgency_tiered"]
    assert tuned.current == "heuristic_first" and tuned.setting == "executive.strategy"
    always = next(row for row in tuned.rows if row.value == "always_llm")
    assert always.changed == 1 and always.llm_calls_avoided == -2

    await engine.tenant_settings.apply("default", "executive.strategy", ApplyIn(value="always_llm"))
    second = await engine.decide_event("the room is warm", **event)
    assert (second.strategy, second.decision_path) == ("always_llm", "llm")
    record = await engine.decisions.get("default", second.response_id)
    assert record.strategy == "always_llm" and record.attributes["strategy_source"] == "tenant"
    own = await engine.decide_event("the room is warm", strategy="heuristic_first", **event)
    assert own.decision_path == "heuristic"
    report = await run_replay(
        engine, "default", ReplayIn(decision_point="executive", parameter="strategy", value="heuristic_first")
    )
    # the event that named its own strategy is not replayed: the setting would not have changed it
    assert (report.current, report.value, report.decisions) == ("always_llm", "heuristic_first", 2)
    assert report.changed == 1  # the always_llm decision would have fired h0
    today = await run_replay(
        engine, "default", ReplayIn(decision_point="executive", parameter="strategy", value="always_llm")
    )
    assert today.changed == 1  # the first decision, made under the configured heuristic_first
