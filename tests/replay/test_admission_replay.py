"""Replaying the pre-filter's low similarity threshold on synthetic admissions whose ground truth
is known, and a tenant's own threshold holding for its next admission (issue 25)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta

from phronesis.admission.feedback import KEY
from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.engine import Engine
from phronesis.replay import ReplayIn, ReplayReport, replay_admission
from phronesis.storage.database import Database
from phronesis.tenant_settings import ApplyIn
from phronesis.testing import FixedClock
from tests.engines import EngineFactory
from tests.replay.test_executive_replay import NOW

LOGGED_LOW = 0.7


@dataclass(frozen=True)
class Run:
    best: float
    same_task: bool
    truth: str
    judged_as: str
    """What the LLM judge says when it is asked (right 90 % of the time)."""

    def decided(self, low: float) -> tuple[str, str]:
        if self.same_task or self.best >= low:
            return "judge", self.judged_as
        return "prefilter", "ADD"


def _world(n: int, seed: int = 5) -> list[Run]:
    """Below 0.75 a run is another task's (ADD is right); above, half are duplicates (NOT)."""
    rng = random.Random(seed)
    runs = []
    for _ in range(n):
        best = rng.uniform(0.4, 1.0)
        same_task = rng.random() < 0.1
        truth = "ADD" if best < 0.75 and not same_task else rng.choice(("ADD", "NOT"))
        wrong = "NOT" if truth == "ADD" else "ADD"
        runs.append(Run(best, same_task, truth, truth if rng.random() < 0.9 else wrong))
    return runs


async def _log(database: Database, runs: list[Run], *, legacy: bool = False, judge: str = "llm") -> None:
    """As the executor records them; ``legacy``: as records before the replay's attributes were kept."""
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    for i, run in enumerate(runs):
        path, action = run.decided(LOGGED_LOW)
        asked = path == "judge" and judge == "llm"
        attributes = {
            "similarity": run.best,
            "rule": "below_low_similarity" if path == "prefilter" else "llm",
            "duplicate_threshold": 0.95,
            "similar_runs": [{"run_id": "r", "similarity": run.best, "same_task": run.same_task}],
        }
        if not legacy:
            attributes |= {
                "low_similarity": LOGGED_LOW,
                "judge_configured": judge,
                "pair_judge": False,
                "same_task_candidates": int(run.same_task),
            }
        await records.write(
            NewDecisionRecord(
                id=f"a{i}",
                tenant="t",
                kind="admission",
                strategy=judge if path == "judge" else None,
                path=path,
                action=action,
                prompt="judge these runs" if asked else None,
                llm_calls=int(asked),
                attributes=attributes,
            )
        )
        right = action == run.truth
        said = {"correct": right, "expected_decision": None if right else run.truth}
        await records.rate("t", f"a{i}", KEY, said, correct=right)


async def _replay(database: Database, value: float) -> ReplayReport:
    body = ReplayIn(decision_point="admission", value=value)
    return await replay_admission(database, "t", body, current=LOGGED_LOW, since=NOW - timedelta(days=30))


def _true_success(runs: list[Run], low: float) -> float:
    return sum(run.decided(low)[1] == run.truth for run in runs) / len(runs)


async def test_a_higher_threshold_saves_judge_calls_and_is_estimated_exactly(database: Database) -> None:
    """Raised to 0.8, the runs between 0.7 and 0.8 are ADDed without the judge: its call is saved,
    and their ratings say whether ADD was right, so every outcome is known."""
    runs = _world(300)
    await _log(database, runs)
    report = await _replay(database, 0.8)
    moved = [r for r in runs if not r.same_task and LOGGED_LOW <= r.best < 0.8]
    assert moved and report.decisions == len(runs)
    assert report.llm_calls_logged - report.llm_calls_replayed == len(moved)
    assert report.changed == sum(r.judged_as != "ADD" for r in moved)
    assert report.coverage == 1.0 and report.replayed_success.covered == len(runs)
    assert report.replayed_success.rate == _true_success(runs, 0.8)
    assert report.current_success.rate == _true_success(runs, LOGGED_LOW)
    assert report.ips is None and "deterministic" in report.weighting


async def test_a_lower_threshold_asks_the_llm_judge_for_verdicts_never_logged(database: Database) -> None:
    """Lowered to 0.5, the runs between 0.5 and 0.7 meet the LLM judge: a call each, and an
    outcome the logs cannot know. They are left out of the estimate, and the coverage says so."""
    runs = _world(300)
    await _log(database, runs)
    report = await _replay(database, 0.5)
    moved = [r for r in runs if not r.same_task and 0.5 <= r.best < LOGGED_LOW]
    assert report.llm_calls_replayed - report.llm_calls_logged == len(moved)
    assert report.changed == len(moved) and report.changes[0].replayed == "judge: ?"
    assert report.replayed_success.covered == len(runs) - len(moved)
    assert report.coverage == (len(runs) - len(moved)) / len(runs)


async def test_with_the_rule_judge_a_lower_threshold_still_adds(database: Database) -> None:
    """The rule judge ADDs a run whose best match is another task's below the duplicate threshold
    (rule 5): lowering the pre-filter's threshold changes nothing and costs nothing."""
    runs = [r for r in _world(200) if not r.same_task]
    await _log(database, runs, judge="rules")
    report = await _replay(database, 0.5)
    assert report.changed == 0 and report.llm_calls_replayed == report.llm_calls_logged == 0
    assert report.coverage == 1.0


async def test_older_records_read_the_same_task_from_their_similar_runs(database: Database) -> None:
    """Records from before the replay's attributes: a same-task run is judged at any threshold,
    and the judge is taken to be the LLM (the calls are then an upper bound)."""
    runs = _world(120)
    await _log(database, runs, legacy=True)
    report = await _replay(database, 0.99)
    judged = sum(r.same_task or r.best >= 0.99 for r in runs)
    assert report.llm_calls_replayed == judged
    assert report.replayed_success.rate == _true_success(runs, 0.99)


async def test_a_tenants_low_threshold_holds_for_its_next_admission(make_engine: EngineFactory) -> None:
    """Applied (``admission.low_similarity``), the threshold is read at the next admission: a run
    the pre-filter ADDed at 0.7 goes to the judge at 0.0, and its record keeps what a replay needs."""
    engine: Engine = await make_engine()
    await engine.admit_run(task="Generate schema", outcome="success")
    before = await engine.admit_run(task="Translate the onboarding guide into French", outcome="success")
    assert (before.stage, before.rule) == ("prefilter", "below_low_similarity")
    await engine.tenant_settings.apply("default", "admission.low_similarity", ApplyIn(value=0.0))
    after = await engine.admit_run(task="Write the release notes for version 2", outcome="success")
    assert (after.decision, after.stage, after.rule) == ("ADD", "judge", "different_task")
    record = await engine.decisions.get("default", after.decision_id)
    assert record.attributes["low_similarity"] == 0.0
    assert (record.attributes["judge_configured"], record.attributes["same_task_candidates"]) == ("rules", 0)
