"""Replaying seed 000's decision strategy itself (``executive.strategy``): what heuristic_first,
urgency_tiered or always_llm would have done with the logged events.

Every executive record keeps what each strategy decides from, whichever strategy made it: the
event's candidates with their confidence and similarity (most similar first), the base
threshold and bias it used, its urgency, whether it was immediate and whether an LLM was
configured. Each strategy's rule is a pure function of those:

- heuristic_first fires the first candidate whose confidence reaches ``base + bias`` (clamped,
  F-24; ``heuristic_first.biased_threshold``), replayed without exploration, as the threshold's
  replay is;
- urgency_tiered decides by tier (``urgency_tiered.select``), with the cut-offs the record kept
  when it was urgency-tiered, else the tenant's current ones (what switching now would use); its
  soon tier draws, with known chances;
- always_llm never fires: the LLM when one was configured and the event immediate, else a
  rejection.

A record replayed under the strategy that made it stands as it was (its exploration and draws
included), and so does an emergency fast-path fire: the fast path runs before any strategy.
Urgency-tiered records from before their chances were kept are not replayed.

Outcomes are the feedback a decision got. The direct estimate covers the rated decisions the
replayed strategy surely decides as logged (or by the same policy). Where the logging policy
was randomised (heuristic_first's exploration, urgency_tiered's soon tier) and could have made
every choice the replayed strategy makes, IPS / SNIPS weight a rated decision by the replayed
strategy's chance of the logged choice over the logging policy's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from pydantic import ValidationError
from sqlalchemy import select

from phronesis.executive.heuristic_first import biased_threshold
from phronesis.executive.types import HeuristicCandidate
from phronesis.executive.urgency_tiered import CUTOFFS, Cutoffs
from phronesis.executive.urgency_tiered import select as select_tiers
from phronesis.replay.estimators import Weighted
from phronesis.replay.executive import REST, REWARDS, llm_path_calls, propensity
from phronesis.replay.models import ReplayReport
from phronesis.replay.recorded import as_dict, as_json, flag
from phronesis.replay.tally import Tally
from phronesis.replay.urgency import policy_label, same_policy
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records
from phronesis.tenant_settings import SettingName

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["Decided", "Strategies", "current_cutoffs", "load_strategies", "policy_under", "replay_strategy_rows"]

c = decision_records.c
EMERGENCY = "emergency_fast_path"
URGENCY = "executive.urgency."


@dataclass(frozen=True, slots=True)
class Decided:
    """What a strategy replay needs of one logged executive decision, whichever strategy made it."""

    strategy: str
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


@dataclass(frozen=True, slots=True)
class Strategies:
    """The loaded decisions, and the urgency cut-offs the tenant's decisions use now."""

    rows: list[Decided]
    cutoffs: Cutoffs


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
    # before issue 25 kept the base: the threshold less the bias (exact unless it was clamped)
    base_ = float(base) if base is not None else float(threshold if threshold is not None else 0.7) - bias_
    available = bool(flag(llm_available, absent=True))
    return Decided(
        strategy=name,
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


async def current_cutoffs(engine: Engine, tenant: str) -> Cutoffs:
    """The urgency cut-offs the tenant's urgency-tiered decisions use now (applied, else configured)."""
    values = {
        name: await engine.tenant_settings.value(tenant, cast(SettingName, f"{URGENCY}{name}")) for name in CUTOFFS
    }
    return Cutoffs(**values, tie_epsilon=engine.settings.heuristics.tie_epsilon)


async def load_strategies(database: Database, tenant: str, since: datetime, cutoffs: Cutoffs) -> Strategies:
    """Every executive decision since ``since``, whichever strategy made it, read once however
    many strategies are replayed on them (``replay.tune``)."""
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
        c.id,
    ).where(c.tenant == tenant, c.kind == "executive", c.created_at >= since)
    async with database.connect() as conn:
        rows = [_decided(*tuple(row)) for row in await conn.execute(query)]
    return Strategies([row for row in rows if row is not None], cutoffs)


def policy_under(row: Decided, strategy: str, cutoffs: Cutoffs) -> dict[str, float]:
    """Each choice's chance had ``strategy`` decided ``row``'s event (``cutoffs``: urgency_tiered's,
    where the record kept none of its own)."""
    if strategy == row.strategy or row.reason == EMERGENCY:
        return row.logged
    if strategy == "always_llm":
        return {REST: 1.0}
    if strategy == "urgency_tiered":
        picked = select_tiers(
            row.candidates,
            base=row.base,
            bias=row.bias,
            urgency=row.urgency,
            cutoffs=row.cutoffs or cutoffs,
            llm_available=row.llm_available,
        )
        return picked.chances or {REST: 1.0}
    threshold = biased_threshold(row.base, row.bias)
    return {next((x.heuristic_id for x in row.candidates if x.confidence >= threshold), REST): 1.0}


def replay_strategy_rows(loaded: Strategies, value: str, *, current: str) -> ReplayReport:
    """``value`` (a strategy's name) replayed on what ``load_strategies`` read."""
    cost = llm_path_calls(loaded.rows)
    tally = Tally()
    supported: list[Weighted] = []
    randomised = 0
    for row in loaded.rows:
        logged, replayed = row.logged, policy_under(row, value, loaded.cutoffs)
        randomised += len(logged) > 1
        same = same_policy(logged, replayed)
        surely_logged = replayed.get(row.choice, 0.0) == 1.0
        change, calls = None, row.llm_calls
        if not same and not surely_logged:
            actions = {x.heuristic_id: x.suggested_action for x in row.candidates}
            change = (f"{row.strategy}: {policy_label(logged, actions, row)}", policy_label(replayed, actions))
            # fires: no call; goes on instead of firing: the LLM's, if one was there
            calls = (row.llm_calls if row.choice == REST else row.llm_if_rest * cost) if REST in replayed else 0
        tally.decision(calls_logged=row.llm_calls, calls_replayed=calls, change=change, decision_id=row.id)
        if row.reward is None:
            continue
        right = bool(row.reward)
        tally.rating(logged_right=right, replayed_right=right if same or surely_logged else None)
        if row.choice in logged and all(logged.get(choice, 0.0) > 0.0 for choice in replayed):
            supported.append(Weighted(reward=row.reward, weight=replayed.get(row.choice, 0.0) / logged[row.choice]))
    weighting = (
        f"{randomised} of {tally.decisions} decisions randomised (exploration, soon-tier draws) with known "
        "chances; the weighted estimates cover the rated decisions whose every replayed choice the logged "
        "policy could make"
        if randomised
        else "no randomised decision in the window (exploration off, no soon-tier draw): only the direct estimate"
    )
    return tally.report(
        decision_point="executive",
        parameter="strategy",
        current=current,
        value=value,
        weighting=weighting,
        weighted=supported if randomised else None,
        over=tally.rated,
    )
