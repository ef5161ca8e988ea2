"""The executive's logged decisions as every strategy-level replay reads them: one
row type, one loader, and one loop that replays another policy over them, for the strategy's
replay (``replay.strategy``) and the urgency cut-offs' (``replay.urgency``).

A row keeps what each strategy decides from, whichever strategy made the record: the candidates
with their confidence and similarity (most similar first), the base threshold and bias, the
urgency, whether the event was immediate and an LLM was there; and the logging policy's chance
of each choice (a heuristic, or ``REST``: the LLM or a rejection): 1 for what a deterministic
rule did, the recorded chances where heuristic_first explored or urgency_tiered's soon tier drew.

The loop counts what changes and what it costs, the direct estimate where the replayed policy
decides as logged (or by the same policy), and IPS / SNIPS weights where the logging policy
could make every choice the replayed one makes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select

from phronesis.executive.types import HeuristicCandidate
from phronesis.executive.urgency_tiered import Cutoffs
from phronesis.executive.urgency_tiered import select as select_tiers
from phronesis.replay.estimators import Weighted
from phronesis.replay.executive import REST, REWARDS, choice_label, llm_path_calls, propensity, recorded_base
from phronesis.replay.recorded import as_dict, as_json, flag
from phronesis.replay.tally import Tally
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records

__all__ = ["EMERGENCY", "Decided", "Replayed", "load_decided", "policy_label", "replay_policies", "same_policy"]

c = decision_records.c
EMERGENCY = "emergency_fast_path"


@dataclass(frozen=True, slots=True)
class Decided:
    """What a strategy replay needs of one logged executive decision, whichever strategy made it."""

    strategy: str
    chosen_by: str | None
    """What chose the strategy (``strategy_source``: event, experiment, tenant, configured; None
    before it was recorded)."""
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
    cutoffs: Cutoffs | None
    """The urgency-tiered record's own cut-offs (None: another strategy's, or not kept)."""
    logged: dict[str, float]
    """The logging policy's chance of each choice (heuristic ids, ``REST``)."""
    id: str = ""

    def tiered(self, cutoffs: Cutoffs) -> dict[str, float]:
        """Each choice's chance had urgency_tiered decided this event with ``cutoffs``."""
        picked = select_tiers(
            self.candidates,
            base=self.base,
            bias=self.bias,
            urgency=self.urgency,
            cutoffs=cutoffs,
            llm_available=self.llm_available,
        )
        return picked.chances or {REST: 1.0}


def _logged_policy(
    strategy: str, choice: str, reason: str | None, exploration: Mapping[str, Any] | None, chances: Any
) -> dict[str, float] | None:
    """The logging policy's chances, or None where the record cannot tell them (an urgency-tiered
    one from before its chances were kept)."""
    if reason == EMERGENCY or strategy == "always_llm":
        return {choice: 1.0}
    if strategy == "urgency_tiered":
        if not isinstance(chances, dict):
            return None
        return {str(h): float(p) for h, p in chances.items()} or {REST: 1.0}
    if exploration is None:
        return {choice: 1.0}
    recorded = exploration.get("chances")
    policy = {str(h): float(p) for h, p in recorded.items()} if isinstance(recorded, dict) else {}
    policy[REST] = propensity(REST, choice, exploration)
    policy.setdefault(choice, propensity(choice, choice, exploration))
    return {k: p for k, p in policy.items() if p > 0.0}


def _decided(
    strategy: str | None,
    path: str,
    reason: str | None,
    matched: str | None,
    outcome: str | None,
    calls: int | None,
    raw_candidates: Any,
    urgency: float | None,
    bias: float | None,
    base: float | None,
    threshold: float | None,
    immediate: Any,
    llm_available: Any,
    raw_cutoffs: Any,
    raw_chances: Any,
    raw_exploration: Any,
    chosen_by: str | None = None,
    decision_id: str = "",
) -> Decided | None:
    name = str(strategy or "heuristic_first")
    choice = str(matched) if path == "heuristic" else REST
    exploration = as_dict(raw_exploration) if raw_exploration is not None else None
    logged = _logged_policy(name, choice, reason, exploration or None, as_json(raw_chances))
    if logged is None:
        return None
    try:  # validated: a bad record is skipped, not guessed
        candidates = tuple(
            HeuristicCandidate.model_validate(cand) for cand in as_json(raw_candidates) or () if isinstance(cand, dict)
        )
    except ValidationError:
        return None
    cutoffs = as_dict(raw_cutoffs)
    kept = (
        Cutoffs(**{k: float(v) for k, v in cutoffs.items() if k in Cutoffs.__dataclass_fields__}) if cutoffs else None
    )
    bias_ = float(bias or 0.0)
    base_ = recorded_base(base, threshold, bias_)
    available = bool(flag(llm_available, absent=True))
    return Decided(
        strategy=name,
        chosen_by=chosen_by,
        path=path,
        reason=reason,
        choice=choice,
        reward=REWARDS.get(outcome or ""),
        llm_calls=int(calls or 0),
        llm_available=available,
        llm_if_rest=available and bool(flag(immediate, absent=True)),
        candidates=candidates,
        urgency=float(urgency or 0.0),
        bias=bias_,
        base=base_,
        cutoffs=kept,
        logged=logged,
        id=decision_id,
    )


async def load_decided(
    database: Database, tenant: str, since: datetime, *, strategy: str | None = None
) -> list[Decided]:
    """The executive decisions since ``since`` (only ``strategy``'s, if given), read once however
    many values are replayed on them (``replay.tune``)."""
    query = select(
        c.strategy,
        c.path,
        c.attributes["reason"].as_string(),
        c.attributes["matched_heuristic_id"].as_string(),
        c.outcome,
        c.llm_calls,
        c.inputs["candidates"],
        c.inputs["urgency"].as_float(),
        c.inputs["personality_biases"]["confidence_threshold"].as_float(),
        c.inputs["base_threshold"].as_float(),
        c.attributes["threshold"].as_float(),
        c.inputs["immediate"].as_string(),
        c.attributes["llm_available"].as_string(),
        c.attributes["cutoffs"],
        c.attributes["chances"],
        c.attributes["exploration"],
        c.attributes["strategy_source"].as_string(),
        c.id,
    ).where(c.tenant == tenant, c.kind == "executive", c.created_at >= since)
    if strategy is not None:
        query = query.where(c.strategy == strategy)
    async with database.connect() as conn:
        rows = [_decided(*tuple(row)) for row in await conn.execute(query)]
    return [row for row in rows if row is not None]


def same_policy(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    return a.keys() == b.keys() and all(math.isclose(a[k], b[k], abs_tol=1e-9) for k in a)


def policy_label(
    policy: Mapping[str, float], actions: Mapping[str, str], logged: Decided | None = None, *, llm: bool | None = None
) -> str:
    """A policy as a change list shows it: a draw among a pool, a heuristic fired, or the rest."""
    if len(policy) > 1:
        drew = f", drew {logged.choice[:8]}" if logged is not None else ""
        return f"soon: drawn among {len(policy)} heuristics{drew}"
    (choice,) = policy
    if choice == REST and logged is not None and logged.choice == REST:
        return f"{logged.path}: {logged.reason or logged.path}"
    return choice_label(choice, actions, llm=llm)


@dataclass(frozen=True, slots=True)
class Replayed:
    """What ``replay_policies`` counted: the report's tally, the weighted decisions, how many
    logged decisions were randomised."""

    tally: Tally
    supported: list[Weighted]
    randomised: int


def replay_policies(
    rows: Sequence[Decided], policy_of: Callable[[Decided], dict[str, float]], *, name_strategy: bool = False
) -> Replayed:
    """Another policy (``policy_of``: each choice's chance for a row) replayed on ``rows``; a change
    names the logged decision's strategy where the rows mix strategies (``name_strategy``)."""
    cost = llm_path_calls(rows)
    tally = Tally()
    supported: list[Weighted] = []
    randomised = 0
    for row in rows:
        logged, replayed = row.logged, policy_of(row)
        randomised += len(logged) > 1
        same = same_policy(logged, replayed)
        # the decision made stands where the replayed policy surely makes it (a soon-tier draw
        # replayed as a sure fire of the heuristic drawn is no change)
        surely_logged = replayed.get(row.choice, 0.0) == 1.0
        change, calls = None, row.llm_calls
        if not same and not surely_logged:
            actions = {x.heuristic_id: x.suggested_action for x in row.candidates}
            was = policy_label(logged, actions, row)
            change = (
                f"{row.strategy}: {was}" if name_strategy else was,
                policy_label(replayed, actions, llm=row.llm_if_rest),
            )
            # fires: no call; goes on instead of firing: the LLM's, if one was there
            calls = (row.llm_calls if row.choice == REST else row.llm_if_rest * cost) if REST in replayed else 0
        tally.decision(calls_logged=row.llm_calls, calls_replayed=calls, change=change, decision_id=row.id)
        if row.reward is None:
            continue
        right = bool(row.reward)
        tally.rating(logged_right=right, replayed_right=right if same or surely_logged else None)
        if row.choice in logged and all(logged.get(choice, 0.0) > 0.0 for choice in replayed):
            supported.append(Weighted(reward=row.reward, weight=replayed.get(row.choice, 0.0) / logged[row.choice]))
    return Replayed(tally, supported, randomised)
