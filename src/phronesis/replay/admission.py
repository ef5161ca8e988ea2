"""Replaying seed 003's low similarity threshold (``admission.low_similarity``) over logged
admission decisions.

The pre-filter ADDs a run whose most similar stored run is below the low threshold, unless a
run of the same task is among them (``admission.prefilter``); every other run goes to the
judge. Each record keeps the best similarity, how many same-task runs were found, and which
judge a run past the pre-filter meets (``attributes``; for records from before these were
kept, the same-task count is read from the similar runs and the judge is taken to be the LLM,
so the calls counted are an upper bound). So for another threshold the replay knows whether a
run would have been judged or added by the pre-filter:

- judged before, added now (the threshold raised above its best similarity): an ADD, and the
  judge's LLM call saved if the LLM judged it. Its outcome is known where a rating says what
  was right;
- added before, judged now (the threshold lowered below it): with the rule judge and no pair
  judge, still an ADD (its best run is below the duplicate threshold and of another task: rule
  5); with the LLM judge, one more call and a verdict never logged, so not covered;
- judged before and now: the rule judge decides on the same-task runs and the best one, which
  any threshold shows it, so the verdict stands. The LLM judge would see the candidates between
  the two thresholds too, or no longer: the replay takes its verdict to stand, an approximation
  the report's change list does not count as a change.

The pre-filter is deterministic: no propensities are logged, so only the direct estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, select

from phronesis.admission.feedback import KEY
from phronesis.audit.ratings import should_have_been
from phronesis.replay.models import ReplayIn, ReplayReport
from phronesis.replay.recorded import as_json
from phronesis.replay.tally import Tally
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records

__all__ = ["Screened", "load_admission", "replay_admission", "replay_admission_rows"]

c = decision_records.c
JUDGED = ("judge", "fail_safe")


@dataclass(frozen=True, slots=True)
class Screened:
    """What a replay needs of one logged admission decision."""

    judged: bool
    """It went past the pre-filter (to the judge, or the judge's fail-safe)."""
    action: str
    rule: str | None
    best: float
    same_task: bool
    """A run of the same task was among the similar runs: judged at any threshold."""
    llm_judge: bool
    """A run past the pre-filter meets the LLM judge."""
    predictable: bool
    """A run past the pre-filter meets the rule judge alone, and its best run is below the duplicate
    threshold: the rule judge would ADD it (rule 5)."""
    llm_asked: bool
    """The judge's LLM was asked for this decision (its call is among ``llm_calls``)."""
    llm_calls: int
    rated: bool
    right: bool
    truth: str | None
    id: str = ""
    """What it should have been (``should_have_been``)."""


def _same_task(count: Any, similar_runs: Any) -> bool:
    if count is not None:
        return float(count) > 0
    runs = as_json(similar_runs)
    return any(isinstance(run, dict) and run.get("same_task") for run in runs or ())


async def load_admission(database: Database, tenant: str, since: datetime) -> list[Screened]:
    """The admissions since ``since`` that met similar runs (the pre-filter's threshold is
    theirs to change), read once however many thresholds are replayed (``replay.tune``)."""
    a = c.attributes
    count = a["same_task_candidates"].as_float()
    query = select(
        c.path,
        c.action,
        a["rule"].as_string(),
        a["similarity"].as_float(),
        count,
        # the similar runs only where the count was not kept (records from before it was)
        case((count.is_(None), a["similar_runs"]), else_=None),
        a["judge_configured"].as_string(),
        a["pair_judge"].as_string(),
        a["duplicate_threshold"].as_float(),
        c.prompt.is_not(None),
        c.llm_calls,
        c.outcome,
        should_have_been(KEY),
        c.id,
    ).where(
        c.tenant == tenant,
        c.kind == "admission",
        c.created_at >= since,
        c.path.in_(("prefilter", *JUDGED)),
        a["similarity"].as_float().is_not(None),
        a["rule"].as_string().not_in(("exact_duplicate", "resent")),
    )
    out = []
    async with database.connect() as conn:
        for row in await conn.execute(query):
            path, action, rule, best, count_, similar, judge, pair, duplicate, asked, calls, outcome, truth, id_ = row
            llm_judge = judge != "rules"  # unknown (older records): the LLM, an upper bound on calls
            pair_judge = pair in (True, 1, "true", "1")
            out.append(
                Screened(
                    judged=path in JUDGED,
                    action=str(action),
                    rule=rule,
                    best=float(best),
                    same_task=_same_task(count_, similar),
                    llm_judge=llm_judge,
                    predictable=not llm_judge and not pair_judge and duplicate is not None and best < duplicate,
                    llm_asked=bool(asked),
                    llm_calls=int(calls or 0),
                    rated=outcome in ("correct", "incorrect"),
                    right=outcome == "correct",
                    truth=truth,
                    id=str(id_),
                )
            )
    return out


async def replay_admission(
    database: Database, tenant: str, body: ReplayIn, *, current: float, since: datetime
) -> ReplayReport:
    """The low threshold ``body.value`` replayed on the tenant's admissions since ``since``."""
    return replay_admission_rows(await load_admission(database, tenant, since), body.number, current=current)


def _add_right(row: Screened) -> bool | None:
    """Whether ADD was right for this run, where its rating says: it was the truth, or it was the
    decision and was rated wrong."""
    if row.truth is not None:
        return row.truth == "ADD"
    if row.rated and not row.right and row.action == "ADD":
        return False
    return None


def replay_admission_rows(rows: Sequence[Screened], value: float, *, current: float) -> ReplayReport:
    """The low threshold ``value`` replayed on rows from ``load_admission``."""
    tally = Tally()
    for row in rows:
        judged = row.same_task or row.best >= value
        logged = f"{'judge' if row.judged else 'prefilter'}: {row.action}"
        calls, change, right = row.llm_calls, None, row.right if row.rated else None
        if row.judged and not judged:
            calls = row.llm_calls - int(row.llm_asked)
            right = _add_right(row)
            if row.action != "ADD":
                change = (logged, "prefilter: ADD")
        elif judged and not row.judged and not row.predictable:
            calls = row.llm_calls + int(row.llm_judge)
            right = None  # a verdict never logged
            change = (logged, "judge: ?")
        tally.decision(calls_logged=row.llm_calls, calls_replayed=calls, change=change, decision_id=row.id)
        if row.rated:
            tally.rating(logged_right=row.right, replayed_right=right)
    return tally.report(
        decision_point="admission",
        parameter="low_similarity",
        current=current,
        value=value,
        weighting="not estimable: the pre-filter is deterministic, its logs carry no propensities",
    )
