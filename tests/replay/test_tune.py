"""``replay.tune`` (issue 25): the proposal follows the stated objective on logs with known truth."""

from __future__ import annotations

import random

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.replay import TuneIn, tune
from phronesis.replay.tune import TuneRow, proposal
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.testing import FixedClock
from tests.executive.conftest import answering
from tests.replay.test_executive_replay import LOGGED, NOW, _events, _log, _true_success


def _engine(database: Database) -> Engine:
    settings = Settings.model_validate({"executive": {"heuristic_threshold": LOGGED}})
    return Engine(settings, database=database, embedder=HashingEmbedder(384), llm=None, clock=FixedClock(NOW))


async def test_tune_proposes_the_threshold_that_saves_llm_calls_without_losing_success(database: Database) -> None:
    events = _events(2000, random.Random(4), ordered=True)
    await _log(database, events, exploration=0.5, llm=answering("handle it"))
    report = await tune(_engine(database), "t", TuneIn(decision_point="executive"))
    assert report.current == LOGGED and report.decisions == 2000 and report.rated == 2000
    assert report.current_success is not None
    by_value = {row.value: row for row in report.rows}
    proposed = by_value[report.proposed]
    # the stated objective: the most calls avoided among the values whose estimate holds up
    assert report.met and proposed.eligible and proposed.method == "snips"
    assert all(row.llm_calls_avoided <= proposed.llm_calls_avoided for row in report.rows if row.eligible)
    for row in report.rows:
        if row.value != LOGGED and row.eligible:
            assert row.success is not None and row.success >= report.current_success and row.coverage >= 0.8
    # and it is a good proposal in truth: fewer LLM calls, no worse than the logging policy
    assert report.proposed < LOGGED and proposed.llm_calls_avoided > 0
    truth = sum(_true_success(e, report.proposed) for e in events) / len(events)
    assert truth >= sum(_true_success(e, LOGGED) for e in events) / len(events)


async def test_with_nothing_rated_it_keeps_the_current_value(database: Database) -> None:
    await _log(database, _events(50, random.Random(5), ordered=True), exploration=0.0, llm=answering("x"), rate=False)
    report = await tune(_engine(database), "t", TuneIn(decision_point="executive"))
    assert report.proposed == LOGGED and report.rated == 0
    # nothing meets the objective, the current value included: it is kept, and the report says so
    assert not report.met and not any(row.eligible for row in report.rows)


def _row(value: float | str, success: float, interval: tuple[float, float], avoided: int = 0) -> TuneRow:
    return TuneRow(
        value=value,
        changed=0 if value == "heuristic_first" else 5,
        llm_calls=0,
        llm_calls_avoided=avoided,
        success=success,
        interval=interval,
        method="direct",
        coverage=1.0,
        eligible=True,
    )


def test_a_change_that_gains_nothing_must_be_shown_better_not_only_estimated_better() -> None:
    """A trial was moved to another strategy with no LLM call avoided, on a point estimate of 80 %
    whose interval (38–96 %) held today's 67 %. Gaining nothing, a value is proposed only when its
    whole interval lies above today's success; gaining more, the most gained wins as before."""
    now = 0.667
    today = _row("heuristic_first", 0.667, (0.3, 0.9))
    hopeful = _row("urgency_tiered", 0.8, (0.376, 0.964))
    assert proposal([today, hopeful], "heuristic_first", now) is today
    sure = _row("urgency_tiered", 0.9, (0.8, 0.97))
    assert proposal([today, sure], "heuristic_first", now) is sure
    cheaper = _row("always_llm", 0.7, (0.4, 0.9), avoided=12)
    assert proposal([today, hopeful, cheaper], "heuristic_first", now) is cheaper
    failing = today.model_copy(update={"eligible": False, "why_not": "success 60.0% < now 66.7%"})
    assert proposal([failing, hopeful], "heuristic_first", now) is None  # keep it: nothing shown better
