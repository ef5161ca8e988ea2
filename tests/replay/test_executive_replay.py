"""Replaying the executive's heuristic threshold on synthetic logs whose ground truth is known
(issue 25): logs written as the service writes them (``executive_record``), decided by the real
strategy with Thompson exploration, so the propensities are the ones production records."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.executive.config import StrategyConfig
from phronesis.executive.heuristic_first import HeuristicFirstStrategy
from phronesis.executive.records import executive_record
from phronesis.executive.types import DecisionContext, HeuristicCandidate
from phronesis.llm.types import LLMProvider
from phronesis.replay import ReplayIn, ReplayReport, replay_executive
from phronesis.storage.database import Database
from phronesis.testing import FixedClock

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
LOGGED = 0.8
REST_SUCCESS = 0.5
"""The true success of not firing (here: no LLM, the agent handles it itself)."""


@dataclass(frozen=True)
class Heuristic:
    id: str
    alpha: float
    beta: float
    success: float
    """Its true success rate: what feedback will say, whatever its confidence claims."""

    @property
    def confidence(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    def candidate(self) -> HeuristicCandidate:
        return HeuristicCandidate(
            heuristic_id=self.id,
            condition_text=f"when {self.id}",
            suggested_action=f"do {self.id}",
            confidence=self.confidence,
            alpha=self.alpha,
            beta=self.beta,
        )


HEURISTICS = (
    Heuristic("sure", 17.0, 3.0, 0.9),  # 0.85: fires at the logged threshold
    Heuristic("decent", 13.0, 7.0, 0.8),  # 0.65: explored at 0.8, fires at 0.6
    Heuristic("weak", 11.0, 9.0, 0.3),  # 0.55
    Heuristic("unsure", 3.0, 3.0, 0.6),  # 0.50: little evidence, explored most
)


def _events(n: int, rng: random.Random, *, ordered: bool) -> list[list[Heuristic]]:
    """Each event's matching heuristics; ``ordered``: most confident first (a replayed lower
    threshold then never fires another heuristic than a deterministic logged fire)."""
    events = []
    for _ in range(n):
        matched = rng.sample(HEURISTICS, rng.randint(1, 3))
        events.append(sorted(matched, key=lambda h: -h.confidence) if ordered else matched)
    return events


def _fires(event: list[Heuristic], threshold: float) -> Heuristic | None:
    return next((h for h in event if h.confidence >= threshold), None)


def _true_success(event: list[Heuristic], threshold: float) -> float:
    fired = _fires(event, threshold)
    return REST_SUCCESS if fired is None else fired.success


async def _log(
    database: Database,
    events: list[list[Heuristic]],
    *,
    exploration: float,
    seed: int = 7,
    llm: LLMProvider | None = None,
    rate: bool = True,
) -> None:
    """The decisions as the service records them, each rated by its true success; ``llm``: an
    answering LLM takes the decisions no heuristic fires (its answers succeed ``REST_SUCCESS``)."""
    rng = random.Random(seed)
    ids = iter(range(10**9))
    strategy = HeuristicFirstStrategy(
        StrategyConfig(confidence_threshold=LOGGED, exploration_rate=exploration),
        rng=random.Random(seed + 1),
        new_id=lambda: f"d{next(ids)}",
    )
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    by_id = {h.id: h for h in HEURISTICS}
    async with database.transaction() as conn:
        for i, event in enumerate(events):
            context = DecisionContext(
                event_id=f"e{i}", event_text="an event", candidates=[h.candidate() for h in event]
            )
            result = await strategy.decide(context, llm=llm)
            await records.write(executive_record("t", context, result, strategy.name, None, 1.0), into=conn)
            fired = by_id.get(result.matched_heuristic_id or "")
            success = REST_SUCCESS if fired is None else fired.success
            outcome = "positive" if rng.random() < success else "negative"
            if rate:
                await records.set_outcome("t", result.response_id, outcome, connection=conn)


async def _replay(database: Database, value: float) -> ReplayReport:
    body = ReplayIn(decision_point="executive", value=value)
    return await replay_executive(database, "t", body, current=LOGGED, since=NOW - timedelta(days=30))


async def test_ips_recovers_a_lower_thresholds_true_success_within_its_interval(database: Database) -> None:
    events = _events(3000, random.Random(1), ordered=True)
    await _log(database, events, exploration=0.5)
    report = await _replay(database, 0.6)
    truth = sum(_true_success(e, 0.6) for e in events) / len(events)
    assert report.parameter == "heuristic_threshold" and report.decisions == 3000
    assert report.ips is not None and report.snips is not None
    # every replayed choice was one the exploring policy could make: the estimate covers all
    assert report.snips.coverage == 1.0 and report.snips.decisions == 3000
    for estimate in (report.ips, report.snips):
        assert estimate.interval is not None
        low, high = estimate.interval
        assert low <= truth <= high, (estimate, truth)
    # the direct estimate sees only the decisions left as they were: it is not the policy's value
    assert report.coverage < 1.0
    changed = sum(1 for e in events if _fires(e, 0.6) is not _fires(e, LOGGED))
    assert report.changed <= changed  # an explored fire may already be the replayed one


async def test_coverage_is_honest_where_the_logging_policy_could_not_have_chosen(database: Database) -> None:
    events = _events(2000, random.Random(2), ordered=False)
    await _log(database, events, exploration=0.5)
    report = await _replay(database, 0.6)
    # a deterministic logged fire of 'sure' where 0.6 fires 'decent' listed before it: unsupported
    unsupported = [e for e in events if (f := _fires(e, LOGGED)) is not None and _fires(e, 0.6) is not f]
    assert unsupported
    assert report.snips is not None
    assert report.snips.decisions == 2000 - len(unsupported)
    assert report.snips.coverage == pytest.approx((2000 - len(unsupported)) / 2000)
    supported = [e for e in events if e not in unsupported]
    truth = sum(_true_success(e, 0.6) for e in supported) / len(supported)
    assert report.snips.interval is not None
    low, high = report.snips.interval
    assert low <= truth <= high


async def test_without_exploration_only_the_direct_estimate(database: Database) -> None:
    events = _events(400, random.Random(3), ordered=True)
    await _log(database, events, exploration=0.0)
    report = await _replay(database, 0.6)
    assert report.ips is None and report.snips is None and "exploration off" in report.weighting
    same = [e for e in events if _fires(e, 0.6) is _fires(e, LOGGED)]
    assert report.replayed_success.covered == len(same) and report.changed == 400 - len(same)
    # the logged decisions did not ask an LLM (none configured), and neither would the replayed ones
    assert report.llm_calls_logged == report.llm_calls_replayed == 0


async def test_the_replay_keeps_each_decisions_personality_bias(database: Database) -> None:
    strategy = HeuristicFirstStrategy(StrategyConfig(confidence_threshold=LOGGED), new_id=lambda: "b1")
    context = DecisionContext(
        event_id="e", event_text="an event", candidates=[HEURISTICS[1].candidate()],
        personality_biases={"confidence_threshold": 0.1},
    )  # fmt: skip
    result = await strategy.decide(context, llm=None)
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    await records.write(executive_record("t", context, result, strategy.name, None, 1.0))
    # 0.6 + 0.1 = 0.7 > 0.65: still no fire; 0.5 + 0.1 = 0.6: 'decent' fires
    assert (await _replay(database, 0.6)).changed == 0
    assert (await _replay(database, 0.5)).changed == 1


async def test_a_default_bias_replay_changes_only_the_decisions_that_took_the_default(database: Database) -> None:
    """``executive.personality_bias`` is the bias of events without their own (F-24): replaying
    it moves the threshold of those decisions only, around the base each one used."""
    strategy = HeuristicFirstStrategy(StrategyConfig(confidence_threshold=LOGGED), new_id=lambda: "b1")
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    for i, (biases, source) in enumerate(
        (({}, "default"), ({"confidence_threshold": 0.0}, "event"), ({"confidence_threshold": -0.05}, "default"))
    ):
        context = DecisionContext(
            event_id=f"e{i}", event_text="an event", candidates=[HEURISTICS[1].candidate()],
            personality_biases=biases, bias_source=source, base_threshold=0.75,
        )  # fmt: skip
        result = await strategy.decide(context, llm=None)
        await records.write(
            executive_record(
                "t", context, result.model_copy(update={"response_id": f"d{i}"}), "heuristic_first", None, 1.0
            )
        )
    body = ReplayIn(decision_point="executive", parameter="personality_bias", value=-0.1)
    report = await replay_executive(database, "t", body, current=0.0, since=NOW - timedelta(days=30))
    # 0.75 − 0.1 = 0.65: 'decent' (0.65) fires for the two that took the default; the event's own 0.0 stays
    # the event that sent its own bias is not among the decisions the default applies to
    assert (report.parameter, report.decisions, report.changed) == ("personality_bias", 2, 2)
    assert [(c.logged, c.replayed, c.decisions) for c in report.changes] == [
        ("rejected: llm_unavailable", "heuristic decent: do decent", 2)
    ]
    body = ReplayIn(decision_point="executive", parameter="personality_bias", value=0.3)
    assert (await replay_executive(database, "t", body, current=0.0, since=NOW - timedelta(days=30))).changed == 0
    with pytest.raises(ValueError, match="from -0.5 to 0.5"):
        ReplayIn(decision_point="executive", parameter="personality_bias", value=0.6)
