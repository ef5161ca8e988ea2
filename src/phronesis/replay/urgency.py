"""Replaying the urgency design's cut-offs (``executive.urgency.<name>``: seed 000, "Planned:
Urgency-Modulated Threshold") over logged ``urgency_tiered`` decisions.

The strategy decides with a pure function of the event's candidates, its urgency, bias and base
threshold, and the cut-offs (``urgency_tiered.select``): the threshold reduction, the urgency a
tier starts at, and what counts as a reasonable or a high match. Each record keeps all of them
(``inputs``, ``attributes.cutoffs``), so the replay calls the same function with one cut-off
changed and knows, for each event, what the strategy would have done: fire a heuristic, draw
one (the soon tier draws by similarity × confidence), or go on to the LLM (when one was
configured and the event immediate) or a rejection.

Outcomes are the feedback a decision got (``positive`` 1, ``negative`` 0). The direct estimate
covers the rated decisions whose outcome under the replayed policy the log establishes: the
policy is the logged one for that event (a soon-tier draw from the same pool included: its
outcome is a draw from the same policy), or it surely makes the logged choice. The soon tier is
randomised with known chances, so IPS / SNIPS weight a rated decision by the replayed policy's
chance of its logged choice over the logged policy's, where every choice the replayed policy
could make had a chance under the logged one. Records from before the cut-offs were kept are not
replayed (the emergency fast path's fires neither: no cut-off decides them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError
from sqlalchemy import select

from phronesis.executive.types import HeuristicCandidate
from phronesis.executive.urgency_tiered import Cutoffs
from phronesis.executive.urgency_tiered import select as select_tiers
from phronesis.replay.estimators import Weighted
from phronesis.replay.executive import REST, REWARDS, choice_label, llm_path_calls
from phronesis.replay.models import ReplayReport
from phronesis.replay.recorded import as_dict, as_json, flag
from phronesis.replay.tally import Tally
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records

__all__ = ["Tiered", "load_tiered", "policy_label", "replay_tiered_rows", "same_policy"]

c = decision_records.c


@dataclass(frozen=True, slots=True)
class Tiered:
    """What a replay needs of one logged urgency-tiered decision."""

    path: str
    reason: str | None
    choice: str
    """The heuristic it fired, or ``REST``."""
    reward: float | None
    llm_calls: int
    llm_available: bool
    llm_if_rest: bool
    candidates: tuple[HeuristicCandidate, ...]
    urgency: float
    bias: float
    base: float
    cutoffs: Cutoffs
    logged: dict[str, float]
    """The logged policy's chances (``policy(cutoffs)``), worked out once."""
    id: str = ""

    def policy(self, cutoffs: Cutoffs) -> dict[str, float]:
        """Each choice's chance under ``cutoffs``: heuristics, or ``REST``."""
        return _policy(self.candidates, self.base, self.bias, self.urgency, self.llm_available, cutoffs)


def _policy(
    candidates: Sequence[HeuristicCandidate],
    base: float,
    bias: float,
    urgency: float,
    llm_available: bool,
    cutoffs: Cutoffs,
) -> dict[str, float]:
    picked = select_tiers(
        candidates, base=base, bias=bias, urgency=urgency, cutoffs=cutoffs, llm_available=llm_available
    )
    return picked.chances or {REST: 1.0}


def _tiered(
    path: str,
    reason: str | None,
    matched: str | None,
    outcome: str | None,
    calls: int | None,
    raw_candidates: Any,
    urgency: float | None,
    bias: float | None,
    base: float | None,
    immediate: Any,
    llm_available: Any,
    raw_cutoffs: Any,
    decision_id: str = "",
) -> Tiered | None:
    cutoffs = as_dict(raw_cutoffs)
    if not cutoffs or base is None or reason == "emergency_fast_path":
        return None  # from before the cut-offs were kept, or not decided by them
    try:  # validated: three times faster than ``model_construct`` here, and a bad record is skipped
        candidates = tuple(
            HeuristicCandidate.model_validate(cand) for cand in as_json(raw_candidates) or () if isinstance(cand, dict)
        )
    except ValidationError:
        return None
    available = bool(flag(llm_available, absent=True))
    kept = Cutoffs(**{k: float(v) for k, v in cutoffs.items() if k in Cutoffs.__dataclass_fields__})
    bias_, base_, urgency_ = float(bias or 0.0), float(base), float(urgency or 0.0)
    return Tiered(
        path=path,
        reason=reason,
        choice=str(matched) if path == "heuristic" else REST,
        reward=REWARDS.get(outcome or ""),
        llm_calls=int(calls or 0),
        llm_available=available,
        llm_if_rest=available and bool(flag(immediate, absent=True)),
        candidates=candidates,
        urgency=urgency_,
        bias=bias_,
        base=base_,
        cutoffs=kept,
        logged=_policy(candidates, base_, bias_, urgency_, available, kept),
        id=decision_id,
    )


async def load_tiered(database: Database, tenant: str, since: datetime) -> list[Tiered]:
    """The urgency-tiered decisions since ``since`` that kept their cut-offs, read once however
    many values are replayed (``replay.tune``)."""
    query = select(
        c.path,
        c.attributes["reason"].as_string(),
        c.attributes["matched_heuristic_id"].as_string(),
        c.outcome,
        c.llm_calls,
        c.inputs["candidates"],
        c.inputs["urgency"].as_float(),
        c.inputs["personality_biases"]["confidence_threshold"].as_float(),
        c.inputs["base_threshold"].as_float(),
        c.inputs["immediate"].as_string(),
        c.attributes["llm_available"].as_string(),
        c.attributes["cutoffs"],
        c.id,
    ).where(c.tenant == tenant, c.kind == "executive", c.strategy == "urgency_tiered", c.created_at >= since)
    async with database.connect() as conn:
        rows = [_tiered(*tuple(row)) for row in await conn.execute(query)]
    return [row for row in rows if row is not None]


class Logged(Protocol):
    """What ``policy_label`` reads of a logged decision (an urgency-tiered one, or any, ``replay.strategy``)."""

    @property
    def choice(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def reason(self) -> str | None: ...


def same_policy(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    return a.keys() == b.keys() and all(math.isclose(a[k], b[k], abs_tol=1e-9) for k in a)


def policy_label(policy: Mapping[str, float], actions: Mapping[str, str], logged: Logged | None = None) -> str:
    """A policy as a change list shows it: a draw among a pool, a heuristic fired, or the rest."""
    if len(policy) > 1:
        drew = f", drew {logged.choice[:8]}" if logged is not None else ""
        return f"soon: drawn among {len(policy)} heuristics{drew}"
    (choice,) = policy
    if choice == REST and logged is not None and logged.choice == REST:
        return f"{logged.path}: {logged.reason or logged.path}"
    return choice_label(choice, actions)


def replay_tiered_rows(rows: Sequence[Tiered], value: float, *, current: float, parameter: str) -> ReplayReport:
    """The cut-off ``parameter`` (``urgency.<name>``) at ``value``, replayed on rows from ``load_tiered``."""
    name = parameter.removeprefix("urgency.")
    cost = llm_path_calls(rows)
    tally = Tally()
    supported: list[Weighted] = []
    drawn = 0
    for row in rows:
        logged, replayed = row.logged, row.policy(row.cutoffs.replace(name, value))
        drawn += len(logged) > 1
        same = same_policy(logged, replayed)
        # the decision made stands where the replayed policy surely makes it (a soon-tier draw
        # replayed as a sure fire of the heuristic drawn is no change: a trial)
        surely_logged = replayed.get(row.choice, 0.0) == 1.0
        change, calls = None, row.llm_calls
        if not same and not surely_logged:
            actions = {cand.heuristic_id: cand.suggested_action for cand in row.candidates}
            change = (policy_label(logged, actions, row), policy_label(replayed, actions))
            # fires: no call; goes on instead of firing: the LLM's, if one was there
            calls = (row.llm_calls if row.choice == REST else row.llm_if_rest * cost) if REST in replayed else 0
        tally.decision(calls_logged=row.llm_calls, calls_replayed=calls, change=change, decision_id=row.id)
        if row.reward is None:
            continue
        right = bool(row.reward)
        tally.rating(logged_right=right, replayed_right=right if same or surely_logged else None)
        if row.choice in logged and all(logged.get(choice, 0.0) > 0.0 for choice in replayed):
            weight = replayed.get(row.choice, 0.0) / logged[row.choice]
            supported.append(Weighted(reward=row.reward, weight=weight))
    weighting = (
        f"{drawn} of {tally.decisions} decisions drawn in the soon tier, with known chances; the weighted "
        "estimates cover the rated decisions whose every replayed choice the logged policy could make"
        if drawn
        else "no decision was drawn (no soon-tier pool of two or more): only the direct estimate"
    )
    return tally.report(
        decision_point="executive",
        parameter=parameter,
        current=current,
        value=value,
        weighting=weighting,
        weighted=supported if drawn else None,
        over=tally.rated,
    )
