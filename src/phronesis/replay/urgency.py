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

from collections.abc import Sequence
from datetime import datetime

from phronesis.executive.urgency_tiered import Cutoffs
from phronesis.replay.executive_log import EMERGENCY, Decided, load_decided, replay_policies
from phronesis.replay.models import ReplayReport
from phronesis.storage.database import Database

__all__ = ["load_tiered", "replay_tiered_rows"]


async def load_tiered(database: Database, tenant: str, since: datetime) -> list[Decided]:
    """The urgency-tiered decisions since ``since`` that kept their cut-offs, read once however
    many values are replayed (``replay.tune``)."""
    rows = await load_decided(database, tenant, since, strategy="urgency_tiered")
    return [row for row in rows if row.cutoffs is not None and row.reason != EMERGENCY]


def _cutoffs_of(row: Decided) -> Cutoffs:
    assert row.cutoffs is not None  # load_tiered keeps only the rows that kept them
    return row.cutoffs


def replay_tiered_rows(rows: Sequence[Decided], value: float, *, current: float, parameter: str) -> ReplayReport:
    """The cut-off ``parameter`` (``urgency.<name>``) at ``value``, replayed on rows from ``load_tiered``."""
    name = parameter.removeprefix("urgency.")
    done = replay_policies(rows, lambda row: row.tiered(_cutoffs_of(row).replace(name, value)))
    weighting = (
        f"{done.randomised} of {done.tally.decisions} decisions drawn in the soon tier, with known chances; the "
        "weighted estimates cover the rated decisions whose every replayed choice the logged policy could make"
        if done.randomised
        else "no decision was drawn (no soon-tier pool of two or more): only the direct estimate"
    )
    return done.tally.report(
        decision_point="executive",
        parameter=parameter,
        current=current,
        value=value,
        weighting=weighting,
        weighted=done.supported if done.randomised else None,
        over=done.tally.rated,
    )
