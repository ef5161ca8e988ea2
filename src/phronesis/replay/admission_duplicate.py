"""Replaying seed 003's duplicate threshold (``admission.duplicate_threshold``) over logged
admission decisions.

The threshold matters past the pre-filter only. There:

- **the rule judge** (no LLM, or the LLM judge's fail-safe ``rules``) decides from the candidates'
  similarities against the threshold, their tasks, outcomes and references. Its verdict can
  change only where the threshold crosses a candidate's similarity, so each record keeps the
  verdict at every threshold, worked out by the rule judge itself when it decided
  (``RuleJudge.by_threshold``, ``attributes.by_duplicate_threshold``). The replay reads the
  verdict another value gives: exact, not modelled;
- **the LLM judge** is given the pre-filter's hint "likely a duplicate" (the best candidate at
  or above the threshold with the same structure). Each record keeps the hint and the highest
  threshold that sets it (``likely_duplicate_from``). Where another value gives the same hint,
  the LLM was asked the same question and its verdict stands; where the hint would change, the
  LLM would be asked another question whose answer was never logged: not covered. The LLM is
  asked either way, so the threshold changes no call.

Outcomes come from admission feedback: a replayed verdict that is the logged one was right as
rated; another decision was right where the rating says what it should have been. Records from
before the verdicts by threshold were kept cannot be replayed and are left out. The judges are
deterministic here (no propensities): only the direct estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from phronesis.admission.feedback import KEY
from phronesis.admission.rule_judge import Step, step_at
from phronesis.audit.ratings import should_have_been
from phronesis.replay.admission import JUDGED
from phronesis.replay.models import ReplayReport
from phronesis.replay.recorded import as_json, flag
from phronesis.replay.tally import Tally
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records

__all__ = ["Judged", "load_judged", "replay_duplicate_rows"]

c = decision_records.c


@dataclass(frozen=True, slots=True)
class Judged:
    """What a replay of the duplicate threshold needs of one admission past the pre-filter."""

    action: str
    target: str | None
    rule: str | None
    steps: tuple[Step, ...] | None
    """The rule judge's verdict at every threshold (None: the LLM judge's verdict stood)."""
    hint: bool | None
    hint_from: float | None
    """The LLM judge was asked (``hint``: whether it was told "likely a duplicate"); the highest
    threshold that tells it so (None: no threshold changes the hint)."""
    llm_calls: int
    rated: bool
    right: bool
    truth: str | None
    id: str = ""

    def replayable(self) -> bool:
        return self.steps is not None or self.hint is not None


def _steps(raw: Any) -> tuple[Step, ...] | None:
    parsed = as_json(raw)
    if not isinstance(parsed, list) or not parsed:
        return None
    return tuple(Step(float(s["above"]), s["decision"], s.get("rule"), s.get("target")) for s in parsed)


async def load_judged(database: Database, tenant: str, since: datetime) -> list[Judged]:
    """The admissions since ``since`` past the pre-filter that recorded what the replay needs,
    read once however many thresholds are replayed (``replay.tune``)."""
    a = c.attributes
    query = select(
        c.action,
        a["target_run_id"].as_string(),
        a["rule"].as_string(),
        a["by_duplicate_threshold"],
        a["likely_duplicate"].as_string(),
        a["likely_duplicate_from"].as_float(),
        c.llm_calls,
        c.outcome,
        should_have_been(KEY),
        c.id,
    ).where(c.tenant == tenant, c.kind == "admission", c.created_at >= since, c.path.in_(JUDGED))
    async with database.connect() as conn:
        rows = [
            Judged(
                action=str(action),
                target=target,
                rule=rule,
                steps=_steps(steps),
                hint=flag(hint),
                hint_from=None if hint_from is None else float(hint_from),
                llm_calls=int(calls or 0),
                rated=outcome in ("correct", "incorrect"),
                right=outcome == "correct",
                truth=truth,
                id=str(id_),
            )
            for action, target, rule, steps, hint, hint_from, calls, outcome, truth, id_ in await conn.execute(query)
        ]
    return [row for row in rows if row.replayable()]


def replay_duplicate_rows(rows: Sequence[Judged], value: float, *, current: float) -> ReplayReport:
    """The duplicate threshold ``value`` replayed on rows from ``load_judged``."""
    tally = Tally()
    for row in rows:
        logged = f"{row.action} ({row.rule})"
        change: tuple[str, str] | None = None
        right = row.right if row.rated else None
        hint = row.hint if row.hint_from is None else value <= row.hint_from
        if row.hint is not None and hint != row.hint:
            # the LLM asked with the other hint: an answer never logged
            change, right = (logged, f"LLM judge asked with likely_duplicate={hint}: ?"), None
        elif row.steps is not None:
            step = step_at(row.steps, value)
            if (step.decision, step.target) != (row.action, row.target):
                change = (logged, f"{step.decision} ({step.rule})")
                # another decision: right where the rating says what it should have been
                right = row.truth == step.decision if row.truth is not None and step.decision != row.action else None
        tally.decision(calls_logged=row.llm_calls, calls_replayed=row.llm_calls, change=change, decision_id=row.id)
        if row.rated:
            tally.rating(logged_right=row.right, replayed_right=right)
    return tally.report(
        decision_point="admission",
        parameter="duplicate_threshold",
        current=current,
        value=value,
        weighting="not estimable: the judges are deterministic here, their logs carry no propensities",
    )
