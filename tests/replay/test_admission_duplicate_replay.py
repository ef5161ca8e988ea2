"""Replaying seed 003's duplicate threshold on synthetic admissions whose ground truth is known,
decided by the real rule judge, and a tenant's own threshold holding for its next admission
(issue 25)."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from phronesis.admission.feedback import KEY
from phronesis.admission.judgement import Candidate, same_structure
from phronesis.admission.rule_judge import RuleJudge
from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.engine import Engine
from phronesis.replay import ReplayIn, run_replay
from phronesis.replay.admission_duplicate import load_judged, replay_duplicate_rows
from phronesis.storage.database import Database
from phronesis.tenant_settings import ApplyIn
from phronesis.testing import FixedClock
from tests.admission.conftest import candidate, incoming
from tests.engines import EngineFactory
from tests.replay.test_executive_replay import NOW

LOGGED = 0.95
JUDGE = RuleJudge()


@dataclass(frozen=True)
class Case:
    candidates: list[Candidate]
    truth: str
    """What it should have been: a same-structure run of the same task above 0.9 is a duplicate
    (NOT), anything else is new (ADD): the world's truth sits below the logged threshold."""


def _world(n: int, seed: int = 3) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        best = round(rng.uniform(0.8, 1.0), 3)
        same_task = rng.random() < 0.5
        refs = ("A",) if rng.random() < 0.8 else ("B",)  # the incoming run has ("A",)
        first = candidate(f"c{i}", best, task_id="t1" if same_task else "t2", refs=refs)
        if not same_task:
            first = replace(first, task="Translate the guide", same_values=False)
        duplicate = same_task and refs == ("A",) and best >= 0.9
        cases.append(Case([first], "NOT" if duplicate else ("MERGE" if same_task else "ADD")))
    return cases


async def _log(database: Database, cases: list[Case], *, llm_hint: bool = False) -> None:
    """As the executor records a rule judge's decision at the logged threshold, rated by the truth;
    ``llm_hint``: as the LLM judge's, with the hint it was given instead of the rule judge's steps."""
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    run = incoming(refs=("A",))
    for i, case in enumerate(cases):
        verdict = JUDGE.judge(run, case.candidates, duplicate_threshold=LOGGED)
        first = case.candidates[0]
        attributes: dict[str, Any] = {
            "similarity": first.similarity,
            "rule": verdict.rule,
            "target_run_id": verdict.target,
        }
        if llm_hint:
            hint_from = first.similarity if same_structure(run, first) else None
            attributes |= {"likely_duplicate": first.similarity >= LOGGED and hint_from is not None}
            attributes |= {"likely_duplicate_from": hint_from}
        else:
            attributes["by_duplicate_threshold"] = [s.record() for s in JUDGE.by_threshold(run, case.candidates)]
        await records.write(
            NewDecisionRecord(
                id=f"a{i}",
                tenant="t",
                kind="admission",
                strategy="rules",
                path="judge",
                action=verdict.decision,
                llm_calls=int(llm_hint),
                attributes=attributes,
            )  # fmt: skip
        )
        right = verdict.decision == case.truth
        await records.rate("t", f"a{i}", KEY, {"expected_decision": None if right else case.truth}, correct=right)


def _true_success(cases: list[Case], threshold: float) -> float:
    run = incoming(refs=("A",))
    return sum(JUDGE.judge(run, c.candidates, duplicate_threshold=threshold).decision == c.truth for c in cases) / len(
        cases
    )


async def test_the_rule_judges_verdict_at_another_threshold_is_read_not_modelled(database: Database) -> None:
    """Lowered to 0.9, same-task runs of the same structure between 0.9 and 0.95 become NOT: the
    steps each record keeps give the rule judge's verdict, and every rating says what was right,
    so the estimate is the true success, on every decision."""
    cases = _world(400)
    await _log(database, cases)
    rows = await load_judged(database, "t", NOW - timedelta(days=30))
    report = replay_duplicate_rows(rows, 0.9, current=LOGGED)
    run = incoming(refs=("A",))
    moved = [
        c
        for c in cases
        if JUDGE.judge(run, c.candidates, duplicate_threshold=0.9).decision
        != JUDGE.judge(run, c.candidates, duplicate_threshold=LOGGED).decision
    ]
    assert moved and (report.decisions, report.changed) == (400, len(moved))
    assert {change.replayed for change in report.changes} == {"NOT (near_duplicate)"}
    assert report.coverage == 1.0 and report.replayed_success.rate == _true_success(cases, 0.9)
    assert report.current_success.rate == _true_success(cases, LOGGED) < report.replayed_success.rate
    assert report.llm_calls_logged == report.llm_calls_replayed == 0


async def test_an_llm_judge_asked_with_another_hint_is_not_covered(database: Database) -> None:
    """The LLM judge's verdict stands where another threshold gives it the same hint; where the
    hint would change, its answer was never logged: a change of unknown outcome, not a guess."""
    cases = _world(200)
    await _log(database, cases, llm_hint=True)
    rows = await load_judged(database, "t", NOW - timedelta(days=30))
    flipped = [
        c
        for c in cases
        if same_structure(incoming(refs=("A",)), c.candidates[0]) and 0.9 <= c.candidates[0].similarity < LOGGED
    ]
    report = replay_duplicate_rows(rows, 0.9, current=LOGGED)
    assert report.changed == len(flipped) > 0
    assert report.changes[0].replayed == "LLM judge asked with likely_duplicate=True: ?"
    assert report.replayed_success.covered == 200 - len(flipped)
    assert report.llm_calls_replayed == report.llm_calls_logged == 200  # asked either way


async def test_a_tenants_duplicate_threshold_holds_for_its_next_admission(make_engine: EngineFactory) -> None:
    """Applied (``admission.duplicate_threshold``), it is read at the next admission ahead of the
    configured one, and the record keeps the rule judge's verdict at every threshold."""
    engine: Engine = await make_engine()
    await engine.admit_run(task="Generate schema", outcome="success", summary="Wrote the schema to db.sql")
    await engine.tenant_settings.apply("default", "admission.duplicate_threshold", ApplyIn(value=0.8))
    assert await engine.admission.duplicate_threshold("default") == 0.8
    again = await engine.admit_run(
        task="Generate schema", outcome="success", summary="Wrote the schema to db.sql, again"
    )
    record = await engine.decisions.get("default", again.decision_id)
    assert record.attributes["duplicate_threshold"] == 0.8
    steps = record.attributes["by_duplicate_threshold"]
    assert steps and steps[-1]["above"] == -1.0
    body = ReplayIn(decision_point="admission", parameter="duplicate_threshold", value=1.0)
    report = await run_replay(engine, "default", body)
    assert (report.parameter, report.current, report.decisions) == ("duplicate_threshold", 0.8, 1)
