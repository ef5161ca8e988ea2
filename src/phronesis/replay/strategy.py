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

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, cast

from phronesis.executive.heuristic_first import biased_threshold
from phronesis.executive.urgency_tiered import CUTOFFS, Cutoffs
from phronesis.replay.executive import REST
from phronesis.replay.executive_log import EMERGENCY, Decided, load_decided, replay_policies
from phronesis.replay.models import ReplayReport
from phronesis.storage.database import Database
from phronesis.tenant_settings import SettingName

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["Strategies", "current_cutoffs", "load_strategies", "policy_under", "replay_strategy_rows"]

URGENCY = "executive.urgency."


@dataclass(frozen=True, slots=True)
class Strategies:
    """The loaded decisions, and the urgency cut-offs the tenant's decisions use now."""

    rows: list[Decided]
    cutoffs: Cutoffs


async def current_cutoffs(engine: Engine, tenant: str) -> Cutoffs:
    """The urgency cut-offs the tenant's urgency-tiered decisions use now (applied, else configured)."""
    settings = engine.tenant_settings
    values = {name: await settings.value(tenant, cast(SettingName, f"{URGENCY}{name}")) for name in CUTOFFS}
    return Cutoffs(**values, tie_epsilon=engine.settings.heuristics.tie_epsilon)


OWN = frozenset({"event", "experiment"})
"""What chose a strategy the tenant's setting never would: the event's own, an A/B arm."""


async def load_strategies(database: Database, tenant: str, since: datetime, cutoffs: Cutoffs) -> Strategies:
    """The executive decisions since ``since`` whose strategy the tenant's setting chose (or the
    configuration), whichever strategy it was, read once however many are replayed on them
    (``replay.tune``). An event that named its own strategy, or an A/B arm's, is not among them:
    the setting would not have changed it (else replaying today's value would "change" them)."""
    rows = await load_decided(database, tenant, since)
    return Strategies([row for row in rows if row.chosen_by not in OWN], cutoffs)


def policy_under(row: Decided, strategy: str, cutoffs: Cutoffs) -> dict[str, float]:
    """Each choice's chance had ``strategy`` decided ``row``'s event (``cutoffs``: urgency_tiered's,
    where the record kept none of its own)."""
    if strategy == row.strategy or row.reason == EMERGENCY:
        return row.logged
    if strategy == "always_llm":
        return {REST: 1.0}
    if strategy == "urgency_tiered":
        return row.tiered(row.cutoffs or cutoffs)
    threshold = biased_threshold(row.base, row.bias)
    return {next((x.heuristic_id for x in row.candidates if x.confidence >= threshold), REST): 1.0}


def replay_strategy_rows(loaded: Strategies, value: str, *, current: str) -> ReplayReport:
    """``value`` (a strategy's name) replayed on what ``load_strategies`` read."""
    done = replay_policies(loaded.rows, lambda row: policy_under(row, value, loaded.cutoffs), name_strategy=True)
    weighting = (
        f"{done.randomised} of {done.tally.decisions} decisions randomised (exploration, soon-tier draws) with "
        "known chances; the weighted estimates cover the rated decisions whose every replayed choice the logged "
        "policy could make"
        if done.randomised
        else "no randomised decision in the window (exploration off, no soon-tier draw): only the direct estimate"
    )
    return done.tally.report(
        decision_point="executive",
        parameter="strategy",
        current=current,
        value=value,
        weighting=weighting,
        weighted=done.supported if done.randomised else None,
        over=done.tally.rated,
    )
