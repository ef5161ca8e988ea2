"""Replaying seed 000's heuristic threshold (``executive.heuristic_threshold``) over logged executive decisions.

A heuristic-first decision fires the first candidate (most similar first) whose confidence
reaches the threshold, ``base + the event's personality bias``, clamped (F-24). Each record
keeps every candidate with the confidence it had then (``inputs.candidates``) and the bias, so
for another base threshold the replay knows which heuristic would have fired, or that none
would and the decision would have gone on (to the LLM when one was configured and the event was
immediate, else rejected). The replayed policy is that deterministic rule, without exploration.

Outcomes are the feedback a decision got (``positive`` 1, ``negative`` 0). The direct estimate
covers the rated decisions the replay leaves as they were. With exploration on, the logging
policy was randomised where no candidate reached its threshold and recorded the propensity of
every choice (``attributes.exploration``): there a decision the replay would change may still
be supported, and IPS / SNIPS weight the matching decisions by 1 / propensity. Where the
logging policy could not have made the replayed choice (it fired deterministically, or the
propensity is 0 or was not recorded), the decision is outside the weighted estimates' coverage.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from phronesis.executive.heuristic_first import biased_threshold
from phronesis.replay.estimators import Weighted, direct, ips, snips
from phronesis.replay.models import Change, ReplayIn, ReplayReport
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records

__all__ = ["REST", "REWARDS", "Logged", "load_executive", "replay_executive", "replay_executive_rows"]

c = decision_records.c
REWARDS = {"positive": 1.0, "negative": 0.0}
REST = "rest"
"""The choice not to fire a heuristic: the LLM path, or a rejection."""


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, str):  # a JSON column read back as text by some drivers
        value = json.loads(value)
    return value if isinstance(value, dict) else {}


def _propensity(choice: str, logged: str, exploration: Mapping[str, Any] | None) -> float:
    """The logging policy's probability of ``choice`` (a heuristic id, or ``REST``) for this
    decision: 1 or 0 where it was deterministic; the recorded chance where it explored. 0 where
    the chance was not recorded (records from before ``chances``): outside the estimate."""
    if exploration is None:
        return 1.0 if choice == logged else 0.0
    if choice == REST:
        stay = exploration.get("stay")
        if stay is None and not exploration.get("explored"):
            stay = exploration.get("probability")
        return float(stay or 0.0)
    chances = exploration.get("chances")
    if isinstance(chances, dict):
        return float(chances.get(choice, 0.0))
    return float(exploration.get("probability") or 0.0) if choice == logged and exploration.get("explored") else 0.0


def _label(choice: str, actions: Mapping[str, str]) -> str:
    if choice == REST:
        return "no heuristic: LLM or rejected"
    action = actions.get(choice, "?")
    return f"heuristic {choice[:8]}: {action[:60]}"


@dataclass(frozen=True, slots=True)
class Logged:
    """What a replay needs of one logged decision, read from its record once."""

    path: str
    reason: str | None
    choice: str
    """The heuristic it fired, or ``REST``."""
    reward: float | None
    llm_calls: int
    llm_if_rest: bool
    """Whether not firing would have asked the LLM (one configured, the event immediate)."""
    bias: float
    candidates: tuple[tuple[str, float], ...]
    """(heuristic id, confidence then), most similar first."""
    actions: Mapping[str, str]
    exploration: Mapping[str, Any] | None


def _logged(path: str, outcome: str | None, llm_calls: int | None, raw_inputs: Any, raw_attributes: Any) -> Logged:
    inputs, attributes = _as_dict(raw_inputs), _as_dict(raw_attributes)
    candidates = [cand for cand in inputs.get("candidates") or () if isinstance(cand, dict)]
    exploration = attributes.get("exploration")
    return Logged(
        path=path,
        reason=attributes.get("reason"),
        choice=str(attributes.get("matched_heuristic_id")) if path == "heuristic" else REST,
        reward=REWARDS.get(outcome or ""),
        llm_calls=int(llm_calls or 0),
        # llm_available is recorded since issue 25; before, assumed (the count is then an upper bound)
        llm_if_rest=bool(inputs.get("immediate", True)) and bool(attributes.get("llm_available", True)),
        bias=float((inputs.get("personality_biases") or {}).get("confidence_threshold", 0.0)),
        candidates=tuple((str(cand.get("heuristic_id")), float(cand.get("confidence", 0.0))) for cand in candidates),
        actions={str(cand.get("heuristic_id")): str(cand.get("suggested_action", "")) for cand in candidates},
        exploration=exploration if isinstance(exploration, dict) else None,
    )


async def replay_executive(
    database: Database, tenant: str, body: ReplayIn, *, current: float, since: datetime
) -> ReplayReport:
    """The base heuristic threshold ``body.value`` replayed on the tenant's heuristic-first
    decisions since ``since``."""
    return replay_executive_rows(await load_executive(database, tenant, since), body.value, current=current)


async def load_executive(database: Database, tenant: str, since: datetime) -> list[Logged]:
    """The heuristic-first decisions since ``since``, read and parsed once however many
    thresholds are replayed on them (``replay.tune``)."""
    query = select(c.path, c.outcome, c.llm_calls, c.inputs, c.attributes).where(
        c.tenant == tenant,
        c.kind == "executive",
        c.strategy == "heuristic_first",
        c.created_at >= since,
    )
    async with database.connect() as conn:
        return [_logged(*row) for row in await conn.execute(query)]


def replay_executive_rows(rows: Sequence[Logged], value: float, *, current: float) -> ReplayReport:
    """The base heuristic threshold ``value`` replayed on rows from ``load_executive``."""
    decisions = changed = calls_logged = calls_replayed = 0
    rated = logged_right = covered = replayed_right = 0
    supported: list[Weighted] = []
    explored = 0
    changes: Counter[tuple[str, str]] = Counter()
    for row in rows:
        threshold = biased_threshold(value, row.bias)
        replayed = next((h for h, confidence in row.candidates if confidence >= threshold), REST)
        logged = row.choice
        explored += row.exploration is not None
        decisions += 1
        calls_logged += row.llm_calls
        if replayed == logged:
            calls_replayed += row.llm_calls
        elif replayed == REST:
            calls_replayed += int(row.llm_if_rest)
        if replayed != logged:
            changed += 1
            logged_label = _label(logged, row.actions) if logged != REST else f"{row.path}: {row.reason or row.path}"
            changes[(logged_label, _label(replayed, row.actions))] += 1
        if row.reward is None:
            continue
        rated += 1
        logged_right += int(row.reward)
        if replayed == logged:
            covered += 1
            replayed_right += int(row.reward)
        if _propensity(replayed, logged, row.exploration) > 0.0:
            weight = 1.0 / _propensity(logged, logged, row.exploration) if replayed == logged else 0.0
            supported.append(Weighted(reward=row.reward, weight=weight))
    weighting = (
        f"{explored} of {decisions} decisions explored, with recorded propensities; the weighted "
        "estimates cover the rated decisions where the logging policy could have made the replayed choice"
        if explored
        else "no explored decisions in the window (exploration off): only the direct estimate"
    )
    return ReplayReport(
        decision_point="executive",
        parameter="heuristic_threshold",
        current=current,
        value=value,
        decisions=decisions,
        changed=changed,
        changes=[Change(logged=a, replayed=b, decisions=n) for (a, b), n in changes.most_common(20)],
        llm_calls_logged=calls_logged,
        llm_calls_replayed=calls_replayed,
        current_success=direct(logged_right, rated),
        replayed_success=direct(replayed_right, covered),
        coverage=covered / rated if rated else 0.0,
        ips=ips(supported, rated) if explored and rated else None,
        snips=snips(supported, rated) if explored and rated else None,
        weighting=weighting,
    )
