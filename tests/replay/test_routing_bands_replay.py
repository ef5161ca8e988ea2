"""Replaying routing's confidence bands on synthetic logs whose ground truth is known (issue 25).

The world knows what every turn's wider search would find, searched or not; the logs keep it
only where the logged bands searched. A replay is exact where the logs establish the turn and
says "not covered" where it would need a search that was never made."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.exceptions import InvalidInputError
from phronesis.replay import ReplayIn, TuneIn, run_replay, tune
from phronesis.replay.models import ReplayReport
from phronesis.replay.routing_bands import NOT_SEARCHED, load_banded, replay_bands_rows
from phronesis.routing.bands import Bands, Evidence, recorded, settle, wants_more
from phronesis.routing.decisions import Decision
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.testing import FixedClock

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
LOGGED = Bands(high=0.75, low=0.5)
MAX_CLARIFICATIONS = 2


@dataclass
class Turn:
    decision: Decision
    first: Evidence
    more: Evidence
    """What the wider search finds, should the bands ask for it."""
    clarifications: int
    truth: str

    def searched(self, bands: Bands) -> bool:
        return wants_more(self.decision, self.first, bands)

    def action(self, bands: Bands) -> str:
        if self.decision is Decision.ESCALATE:
            return self.decision.value
        more = self.searched(bands)
        settled = settle(
            self.decision,
            self.more if more else self.first,
            bands,
            retrieved_more=more,
            clarifications=self.clarifications,
            max_clarifications=MAX_CLARIFICATIONS,
        )
        return settled.action.value


def _world(n: int, seed: int = 5) -> list[Turn]:
    """Checked decisions at confidences from 0.2 to 1; the right action is the decision itself
    with probability the confidence, else a person (ESCALATE) or a question (CLARIFY)."""
    rng = random.Random(seed)
    turns = []
    for _ in range(n):
        decision = rng.choice([Decision.RETRIEVE, Decision.RETRIEVE, Decision.USE_TOOL, Decision.REASON_ONLY,
                               Decision.CLARIFY, Decision.ESCALATE])  # fmt: skip
        confidence = rng.uniform(0.2, 1.0)
        composite = min(1.0, max(0.0, confidence + rng.uniform(-0.15, 0.15)))
        retrieved = decision is Decision.RETRIEVE
        first = Evidence(confidence, composite, retrieved, retrieved and rng.random() < 0.1)
        wider = min(1.0, confidence + rng.uniform(-0.05, 0.2))
        more = Evidence(wider, min(1.0, composite + 0.05), retrieved, retrieved and rng.random() < 0.05)
        truth = decision.value if rng.random() < confidence else rng.choice(["ESCALATE", "CLARIFY"])
        turns.append(Turn(decision, first, more, rng.randint(0, 2), truth))
    return turns


async def _log(database: Database, turns: list[Turn]) -> None:
    """As the service records them: the search's evidence only where the logged bands searched."""
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    for i, turn in enumerate(turns):
        action = turn.action(LOGGED)
        bands = recorded(turn.decision, LOGGED)
        if turn.decision is not Decision.ESCALATE:
            searched = turn.searched(LOGGED)
            bands = recorded(
                turn.decision,
                LOGGED,
                turn.first,
                more_tried=searched,
                more=turn.more if searched else None,
                clarifications=turn.clarifications,
                max_clarifications=MAX_CLARIFICATIONS,
            )
        record = NewDecisionRecord(id=f"b{i}", tenant="t", kind="routing", strategy="local", path="local",
                                   action=action, llm_calls=0, attributes={"bands": bands})  # fmt: skip
        await records.write(record)
        right = action == turn.truth
        said = {"correct": right, "expected_decision": None if right else turn.truth}
        await records.rate("t", f"b{i}", "route_feedback", said, correct=right)


async def _replay(database: Database, parameter: str, value: float) -> ReplayReport:
    body = ReplayIn(decision_point="routing", parameter=parameter, value=value)
    rows = await load_banded(database, "t", NOW - timedelta(days=30))
    current = LOGGED.high if parameter == "high_threshold" else LOGGED.low
    return replay_bands_rows(rows, body.value, current=current, parameter=parameter)


def _rate(turns: list[Turn], bands: Bands) -> float:
    return sum(t.action(bands) == t.truth for t in turns) / len(turns)


@pytest.mark.parametrize(("parameter", "value"), [("high_threshold", 0.6), ("low_threshold", 0.65)])
async def test_a_replay_that_searches_no_more_than_the_logs_is_exact(
    database: Database, parameter: str, value: float
) -> None:
    """A lower high threshold, or a higher low one, shrinks the medium band: every search it
    makes, the logged bands made too."""
    turns = _world(300)
    await _log(database, turns)
    bands = Bands(high=value, low=LOGGED.low) if parameter == "high_threshold" else Bands(LOGGED.high, value)
    report = await _replay(database, parameter, value)
    assert report.decisions == 300 and report.coverage == 1.0
    assert report.replayed_success.rate == pytest.approx(_rate(turns, bands))
    assert report.current_success.rate == pytest.approx(_rate(turns, LOGGED))
    assert report.changed == sum(t.action(bands) != t.action(LOGGED) for t in turns) > 0
    # each kind of change names a few of its decisions, to look up
    for change in report.changes:
        assert 1 <= len(change.examples) <= min(3, change.decisions)
        for example in change.examples:
            turn = turns[int(example.removeprefix("b"))]
            assert (turn.action(LOGGED), turn.action(bands)) == (change.logged, change.replayed)
    assert report.llm_calls_replayed == report.llm_calls_logged == 0
    assert report.ips is None and "not estimable" in report.weighting


async def test_a_search_the_logs_never_made_is_not_covered(database: Database) -> None:
    """A higher high threshold puts turns in the medium band that went straight through: their
    wider search was never made, so what they would have answered is not known."""
    turns = _world(300)
    await _log(database, turns)
    bands = Bands(high=0.9, low=LOGGED.low)
    unknown = [t for t in turns if t.searched(bands) and not t.searched(LOGGED)]
    assert unknown, "the world has turns that would now search again"
    report = await _replay(database, "high_threshold", 0.9)
    known = [t for t in turns if t not in unknown]
    assert report.replayed_success.covered == len(known)
    assert report.replayed_success.rate == pytest.approx(_rate(known, bands))
    assert any(c.replayed == NOT_SEARCHED.format("RETRIEVE") for c in report.changes)
    # hand-offs of the settled turns; the unsettled ones apart (a trial saw them counted as hand-offs)
    assert report.handoffs_replayed == sum(t.action(bands) == "ESCALATE" for t in known)
    assert report.handoffs_unsettled == len(unknown)
    assert report.handoffs_logged == sum(t.action(LOGGED) == "ESCALATE" for t in turns)


async def test_the_logged_thresholds_replay_to_the_logged_decisions(database: Database) -> None:
    turns = _world(200)
    await _log(database, turns)
    report = await _replay(database, "low_threshold", LOGGED.low)
    assert report.changed == 0 and report.replayed_success.rate == report.current_success.rate


def _engine(database: Database) -> Engine:
    return Engine(Settings(), database=database, embedder=HashingEmbedder(384), llm=None, clock=FixedClock(NOW))


async def test_tune_spares_people_without_losing_success_and_offers_only_ordered_values(database: Database) -> None:
    """The bands change no LLM call: tune's objective is the turns handed to a person. Its grid
    holds only values Apply would take beside the other threshold (a trial was offered a high
    threshold below the low one)."""
    turns = _world(400)
    await _log(database, turns)
    engine = _engine(database)
    report = await tune(engine, "t", TuneIn(decision_point="routing", parameter="low_threshold"))
    assert report.objective.startswith("fewest turns handed to a person")
    assert [row.value for row in report.rows] == [v / 20 for v in range(16)]  # 0 … 0.75 (high)
    by_value = {row.value: row for row in report.rows}
    for row in report.rows:
        bands = Bands(LOGGED.high, row.value)
        unsettled = [t.searched(bands) and not t.searched(LOGGED) for t in turns]
        settled = [t for t, u in zip(turns, unsettled, strict=True) if not u]
        assert row.handoffs == sum(t.action(bands) == "ESCALATE" for t in settled)
        assert row.unsettled == sum(unsettled)
        assert not row.eligible or row.unsettled <= 0.2 * len(turns)
    assert report.met
    proposed = by_value[report.proposed]
    assert proposed.eligible and proposed.success is not None and report.current_success is not None
    assert proposed.success >= report.current_success
    assert proposed.handoffs == min(row.handoffs or 0 for row in report.rows if row.eligible)
    high = await tune(engine, "t", TuneIn(decision_point="routing", parameter="high_threshold"))
    assert min(row.value for row in high.rows) == LOGGED.low


async def test_a_replay_of_a_value_apply_would_refuse_is_refused(database: Database) -> None:
    body = ReplayIn(decision_point="routing", parameter="high_threshold", value=0.3)
    with pytest.raises(InvalidInputError, match="must not be below routing.low_threshold"):
        await run_replay(_engine(database), "t", body)
