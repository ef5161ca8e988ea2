"""Replaying seed 000's heuristic threshold (``executive.heuristic_threshold``) or its default
personality bias (``executive.personality_bias``) over logged executive decisions.

A heuristic-first decision fires the first candidate (most similar first) whose confidence
reaches the threshold, ``base + the personality bias``, clamped (F-24). Each record keeps every
candidate with the confidence it had then (``inputs.candidates``), the base and the bias, and
whether the bias was the event's own or the default (``inputs.bias_source``), so for another
base threshold, or another default bias, the replay knows which heuristic would have fired, or
that none would and the decision would have gone on (to the LLM when one was configured and the
event was immediate, else rejected). A default bias is replayed on the decisions that took the
default only: an event that carried its own bias is not among them. The replayed policy is that
deterministic rule, without exploration.

Records from before the base and the bias source were kept: the base is the threshold less the
bias (exact unless the threshold was clamped), and a recorded bias was the event's own (there
was no default then).

Outcomes are the feedback a decision got (``positive`` 1, ``negative`` 0). The direct estimate
covers the rated decisions the replay leaves as they were. With exploration on, the logging
policy was randomised where no candidate reached its threshold and recorded the propensity of
every choice (``attributes.exploration``): there a decision the replay would change may still
be supported, and IPS / SNIPS weight the matching decisions by 1 / propensity. Where the
logging policy could not have made the replayed choice (it fired deterministically, or the
propensity is 0 or was not recorded), the decision is outside the weighted estimates' coverage.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from phronesis.executive.heuristic_first import biased_threshold
from phronesis.replay.estimators import Weighted
from phronesis.replay.models import ReplayIn, ReplayReport
from phronesis.replay.recorded import as_dict, as_json, flag
from phronesis.replay.tally import Tally
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records

__all__ = [
    "LLM_PATH_CALLS",
    "Logged",
    "REST",
    "REWARDS",
    "choice_label",
    "llm_path_calls",
    "load_executive",
    "propensity",
    "recorded_base",
    "replay_executive",
    "replay_executive_rows",
]

c = decision_records.c
REWARDS = {"positive": 1.0, "negative": 0.0}
REST = "rest"
"""The choice not to fire a heuristic: the LLM path, or a rejection."""
LLM_PATH_CALLS = 2
"""Seed 000's LLM path: the answer, then the success prediction."""


def llm_path_calls(rows: Iterable[Any]) -> int:
    """What a decision sent on to the LLM costs, in calls: the median the window's LLM-path
    decisions paid (``path``, ``llm_calls``), else seed 000's two (a replay counting one per LLM
    decision it adds would undercount them by half)."""
    paid = [row.llm_calls for row in rows if row.path == "llm" and row.llm_calls > 0]
    return int(statistics.median_low(paid)) if paid else LLM_PATH_CALLS


def propensity(choice: str, logged: str, exploration: Mapping[str, Any] | None) -> float:
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


def choice_label(choice: str, actions: Mapping[str, str], *, llm: bool | None = None) -> str:
    """A heuristic fired (its action), or ``REST``: what a change list shows. ``llm``: whether not
    firing would ask the LLM (one configured, the event immediate) or reject (not "LLM or
    rejected" where the record knows there was no LLM)."""
    if choice == REST:
        return "no heuristic: LLM or rejected" if llm is None else f"no heuristic: {'the LLM' if llm else 'rejected'}"
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
    base: float
    """The base threshold the decision used (the tenant's, else the configured one)."""
    default_bias: bool
    """Whether ``bias`` was the default (the event carried none): what a bias replay replaces."""
    candidates: tuple[tuple[str, float], ...]
    """(heuristic id, confidence then), most similar first."""
    actions: Mapping[str, str]
    exploration: Mapping[str, Any] | None
    id: str = ""
    """The decision record's id (a report names a few of those that change)."""


def _logged(
    path: str,
    outcome: str | None,
    llm_calls: int | None,
    raw_candidates: Any,
    bias: float | None,
    immediate: Any,
    matched: str | None,
    reason: str | None,
    llm_available: Any,
    raw_exploration: Any,
    base: float | None = None,
    bias_source: str | None = None,
    threshold: float | None = None,
    decision_id: str = "",
) -> Logged:
    parsed = as_json(raw_candidates)
    candidates = [cand for cand in parsed or () if isinstance(cand, dict)]
    exploration = as_dict(raw_exploration) if raw_exploration is not None else None
    return Logged(
        path=path,
        reason=reason,
        choice=str(matched) if path == "heuristic" else REST,
        reward=REWARDS.get(outcome or ""),
        llm_calls=int(llm_calls or 0),
        # llm_available: assumed where a record lacks it (the count is then an upper bound)
        llm_if_rest=bool(flag(immediate, absent=True) and flag(llm_available, absent=True)),
        bias=float(bias or 0.0),
        base=recorded_base(base, threshold, float(bias or 0.0)),
        default_bias=bias_source == "default" if bias_source is not None else bias is None,
        candidates=tuple((str(cand.get("heuristic_id")), float(cand.get("confidence", 0.0))) for cand in candidates),
        actions={str(cand.get("heuristic_id")): str(cand.get("suggested_action", "")) for cand in candidates},
        exploration=exploration or None,
        id=decision_id,
    )


def recorded_base(base: float | None, threshold: float | None, bias: float) -> float:
    """The base threshold a decision used: as recorded, or for a record without it, the threshold less
    the bias (exact unless it was clamped)."""
    if base is not None:
        return float(base)
    return float(threshold if threshold is not None else 0.7) - bias  # a record without its base


async def replay_executive(
    database: Database, tenant: str, body: ReplayIn, *, current: float, since: datetime
) -> ReplayReport:
    """``body.value`` of ``body.parameter`` replayed on the tenant's heuristic-first decisions
    since ``since``."""
    rows = await load_executive(database, tenant, since)
    return replay_executive_rows(rows, body.number, current=current, parameter=str(body.parameter))


async def load_executive(database: Database, tenant: str, since: datetime) -> list[Logged]:
    """The heuristic-first decisions since ``since``, read and parsed once however many
    thresholds are replayed on them (``replay.tune``)."""
    # only the paths the replay reads, extracted in SQL: not the event text, goals, prompts
    query = select(
        c.path,
        c.outcome,
        c.llm_calls,
        c.inputs["candidates"],
        c.inputs["personality_biases"]["confidence_threshold"].as_float(),
        c.inputs["immediate"].as_string(),
        c.attributes["matched_heuristic_id"].as_string(),
        c.attributes["reason"].as_string(),
        c.attributes["llm_available"].as_string(),
        c.attributes["exploration"],
        c.inputs["base_threshold"].as_float(),
        c.inputs["bias_source"].as_string(),
        c.attributes["threshold"].as_float(),
        c.id,
    ).where(
        c.tenant == tenant,
        c.kind == "executive",
        c.strategy == "heuristic_first",
        c.created_at >= since,
    )
    async with database.connect() as conn:
        return [_logged(*tuple(row)) for row in await conn.execute(query)]


def replay_executive_rows(
    rows: Sequence[Logged], value: float, *, current: float, parameter: str = "heuristic_threshold"
) -> ReplayReport:
    """The base heuristic threshold (or, for ``personality_bias``, the default bias) ``value``
    replayed on rows from ``load_executive``."""
    bias = parameter == "personality_bias"
    cost = llm_path_calls(rows)
    tally = Tally()
    supported: list[Weighted] = []
    explored = 0
    for row in rows:
        if bias and not row.default_bias:
            continue  # the event sent its own bias: the default never applied to it
        threshold = biased_threshold(row.base, value) if bias else biased_threshold(value, row.bias)
        replayed = next((h for h, confidence in row.candidates if confidence >= threshold), REST)
        logged = row.choice
        explored += row.exploration is not None
        # unchanged: what it cost; a heuristic fires instead: none; it goes on instead: the LLM's, if one was there
        calls = row.llm_calls if replayed == logged else row.llm_if_rest * cost if replayed == REST else 0
        change = None
        if replayed != logged:
            logged_label = (
                choice_label(logged, row.actions) if logged != REST else f"{row.path}: {row.reason or row.path}"
            )
            change = (logged_label, choice_label(replayed, row.actions, llm=row.llm_if_rest))
        tally.decision(calls_logged=row.llm_calls, calls_replayed=calls, change=change, decision_id=row.id)
        if row.reward is None:
            continue
        right = bool(row.reward)
        tally.rating(logged_right=right, replayed_right=right if replayed == logged else None)
        if propensity(replayed, logged, row.exploration) > 0.0:
            weight = 1.0 / propensity(logged, logged, row.exploration) if replayed == logged else 0.0
            supported.append(Weighted(reward=row.reward, weight=weight))
    weighting = (
        f"{explored} of {tally.decisions} decisions explored, with recorded propensities; the weighted "
        "estimates cover the rated decisions where the logging policy could have made the replayed choice"
        if explored
        else "no explored decisions in the window (exploration off): only the direct estimate"
    )
    return tally.report(
        decision_point="executive",
        parameter=parameter,
        current=current,
        value=value,
        weighting=weighting,
        weighted=supported if explored else None,
        over=tally.rated,
    )
