"""Replaying the cascade threshold on synthetic logs whose ground truth is known (issue 25)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.replay import ReplayIn, ReplayReport, replay_routing
from phronesis.storage.database import Database
from phronesis.testing import FixedClock

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
DECISIONS = ("RETRIEVE", "REASON_ONLY", "USE_TOOL", "CLARIFY", "ESCALATE")
LOGGED_THRESHOLD = 0.75


@dataclass
class Turn:
    probability: float
    abstained: str | None
    truth: str
    local: str
    llm: str

    def decided(self, threshold: float) -> tuple[str, str]:
        asked = self.abstained is not None or self.probability < threshold
        return ("llm", self.llm) if asked else ("local", self.local)


def _world(n: int, seed: int = 3) -> list[Turn]:
    """A calibrated local router (right with probability p) and an LLM right 90 % of the time."""
    rng = random.Random(seed)
    turns = []
    for _ in range(n):
        p = rng.uniform(0.3, 1.0)
        truth = rng.choice(DECISIONS)
        wrong = [d for d in DECISIONS if d != truth]
        local = truth if rng.random() < p else rng.choice(wrong)
        llm = truth if rng.random() < 0.9 else rng.choice(wrong)
        turns.append(Turn(p, "ambiguous" if rng.random() < 0.1 else None, truth, local, llm))
    return turns


async def _log(database: Database, turns: list[Turn], *, rate: bool = True, llm: bool = True) -> None:
    """As the service records them; ``llm`` False: no LLM configured, the local router decides all."""
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    for i, turn in enumerate(turns):
        path, action = turn.decided(LOGGED_THRESHOLD) if llm else ("local", turn.local)
        local = {"decision": turn.local, "probability": turn.probability, "abstained": turn.abstained}
        await records.write(
            NewDecisionRecord(
                id=f"t{i}",
                tenant="t",
                kind="routing",
                strategy="cascade",
                path=path,
                action=action,
                llm_calls=int(path == "llm"),
                attributes={"local": local, "llm_configured": llm},
            )  # fmt: skip
        )
        if rate:
            right = action == turn.truth
            said = {"correct": right, "expected_decision": None if right else turn.truth}
            await records.rate("t", f"t{i}", "route_feedback", said, correct=right)


async def _replay(database: Database, value: float) -> ReplayReport:
    body = ReplayIn(decision_point="routing", parameter="cascade_threshold", value=value)
    return await replay_routing(database, "t", body, current=LOGGED_THRESHOLD, since=NOW - timedelta(days=30))


async def test_a_lower_threshold_is_estimated_exactly_where_every_outcome_is_known(database: Database) -> None:
    turns = _world(300)
    await _log(database, turns)
    report = await _replay(database, 0.5)
    truth = sum(t.decided(0.5)[1] == t.truth for t in turns) / len(turns)
    logged = sum(t.decided(LOGGED_THRESHOLD)[1] == t.truth for t in turns) / len(turns)
    assert report.coverage == 1.0 and report.replayed_success.covered == 300
    assert report.replayed_success.rate == pytest.approx(truth)
    assert report.replayed_success.interval is not None
    low, high = report.replayed_success.interval
    assert low <= truth <= high
    assert report.current_success.rate == pytest.approx(logged)
    switched = sum(1 for t in turns if t.decided(0.5)[0] != t.decided(LOGGED_THRESHOLD)[0])
    assert report.changed == switched and report.llm_calls_replayed == report.llm_calls_logged - switched


async def test_a_higher_threshold_covers_only_what_the_logs_establish(database: Database) -> None:
    turns = _world(300)
    await _log(database, turns)
    report = await _replay(database, 0.9)
    now_llm = [t for t in turns if t.decided(0.9)[0] == "llm" and t.decided(LOGGED_THRESHOLD)[0] == "local"]
    assert now_llm, "the world has decisions the LLM would now make"
    assert report.replayed_success.covered == 300 - len(now_llm)
    assert report.coverage == pytest.approx((300 - len(now_llm)) / 300)
    known = [t for t in turns if t not in now_llm]
    assert report.replayed_success.rate == pytest.approx(sum(t.decided(0.9)[1] == t.truth for t in known) / len(known))
    assert report.llm_calls_replayed == report.llm_calls_logged + len(now_llm)
    assert report.ips is None and report.snips is None and "not estimable" in report.weighting


async def test_without_ratings_nothing_is_estimated(database: Database) -> None:
    await _log(database, _world(50), rate=False)
    report = await _replay(database, 0.5)
    assert report.decisions == 50 and report.replayed_success.covered == 0
    assert report.replayed_success.rate is None and report.coverage == 0.0


async def test_without_an_llm_no_threshold_asks_one(database: Database) -> None:
    """With no LLM configured the cascade's local router decides every turn: another threshold
    changes nothing and adds no call (a trial saw "local → llm: ?" and a call that cannot happen)."""
    turns = _world(100)
    await _log(database, turns, llm=False)
    report = await _replay(database, 0.95)
    assert report.changed == 0 and report.llm_calls_replayed == report.llm_calls_logged == 0
    assert report.coverage == 1.0
