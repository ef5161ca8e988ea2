"""Replaying seed 002's confidence bands (``routing.high_threshold``, ``routing.low_threshold``)
over logged routing decisions.

Each routed turn records what its bands read (``attributes.bands``): the checked decision they
were given, the thresholds, the evidence (confidence, composite, whether retrieval ran and found
nothing) before and, where seed 002's "retrieve more" searched again, after the wider search, and
the session's clarification streak. The replay settles each turn again with the service's own
rule (``routing.bands.settle``) and one threshold changed:

- a turn that would not search again settles on the evidence before the search: exact;
- a turn that would search again where the logged one did (or tried and failed) settles on
  what that search found: exact;
- a turn that would search again where the logged one did not: the search was never made,
  so what it would have found is not known: "retrieve more: ?", not covered.

Outcomes come from route feedback: a replayed decision that is the logged one was right as
rated; another decision was right where the rating says what it should have been. A RETRIEVE
answered with or without the wider search's sources counts as the same decision: an
approximation to that extent. The bands are deterministic (no propensities): only the direct
estimate. Turns recorded before the bands' evidence was kept are left out. Bands change no LLM
call (the router was asked before them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import select

from phronesis.replay.models import ReplayReport
from phronesis.replay.recorded import as_dict
from phronesis.replay.tally import Tally
from phronesis.routing.bands import Bands, Evidence, settle, wants_more
from phronesis.routing.decisions import Decision
from phronesis.routing.route_feedback import should_have_been
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records

__all__ = ["NOT_SEARCHED", "Banded", "load_banded", "replay_bands_rows"]

c = decision_records.c

NOT_SEARCHED = "{} after a wider search never made: ? (not covered)"
"""A turn the replayed bands would search again where the logged ones did not."""


@dataclass(frozen=True, slots=True)
class Banded:
    """What a replay of the bands needs of one routed turn."""

    action: str
    decision: Decision
    """The checked decision the bands were given."""
    bands: Bands
    first: Evidence | None
    more_tried: bool
    more: Evidence | None
    clarifications: int
    max_clarifications: int
    llm_calls: int
    confirm_tools: bool
    """Whether a medium-band USE_TOOL was confirmed first (not for a read-only tool or a call the
    user named); True where a record lacks it, as such turns were decided."""
    truth: str | None
    """What was right, where a rating says (the action itself when rated correct)."""
    id: str = ""

    def action_at(self, bands: Bands) -> str | None:
        """The action at ``bands``, or None: it would retrieve more where the logged turn did not."""
        if self.decision is Decision.ESCALATE or self.first is None:
            return self.decision.value
        evidence, more = self.first, False
        if wants_more(self.decision, self.first, bands):
            if not self.more_tried:
                return None
            if self.more is not None:
                evidence, more = self.more, True
        settled = settle(
            self.decision,
            evidence,
            bands,
            retrieved_more=more,
            clarifications=self.clarifications,
            max_clarifications=self.max_clarifications,
            confirm_tools=self.confirm_tools,
        )
        return settled.action.value


def _banded(action: str, raw: object, calls: int | None, truth: str | None, id_: str) -> Banded | None:
    bands = as_dict(raw)
    try:
        decision = Decision(bands["decision"])
        first = None if "first" not in bands else Evidence.from_dict(bands["first"])
        more = bands.get("more")
        return Banded(
            action=action,
            decision=decision,
            bands=Bands(high=float(bands["high"]), low=float(bands["low"])),
            first=first,
            more_tried=bool(bands.get("more_tried")),
            more=None if not more else Evidence.from_dict(more),
            clarifications=int(bands.get("clarifications", 0)),
            max_clarifications=int(bands.get("max_clarifications", 0)),
            llm_calls=int(calls or 0),
            confirm_tools=bool(bands.get("confirm_tools", True)),
            truth=truth,
            id=id_,
        )
    except (KeyError, TypeError, ValueError):
        return None  # recorded before the bands' evidence was kept


async def load_banded(database: Database, tenant: str, since: datetime) -> list[Banded]:
    """The routed turns since ``since`` that recorded their bands, read once however many
    thresholds are replayed (``replay.tune``)."""
    query = select(c.action, c.attributes["bands"], c.llm_calls, should_have_been(), c.id).where(
        c.tenant == tenant,
        c.kind == "routing",
        c.created_at >= since,
        c.action.is_not(None),
        c.attributes["bands"].is_not(None),
    )
    async with database.connect() as conn:
        rows = [_banded(str(action), *rest) for action, *rest in await conn.execute(query)]
    return [row for row in rows if row is not None]


def replay_bands_rows(rows: Sequence[Banded], value: float, *, current: float, parameter: str) -> ReplayReport:
    """The band threshold ``parameter`` (``high_threshold`` or ``low_threshold``) at ``value``,
    the other as each turn had it, replayed on rows from ``load_banded``."""
    tally = Tally(counts_handoffs=True)
    escalate = Decision.ESCALATE.value
    for row in rows:
        bands = replace(row.bands, high=value) if parameter == "high_threshold" else replace(row.bands, low=value)
        replayed = row.action_at(bands)
        change: tuple[str, str] | None = None
        if replayed != row.action:
            # a turn decided under another value says so (else replaying today's value shows changes)
            then = row.bands.high if parameter == "high_threshold" else row.bands.low
            logged = row.action if math.isclose(then, current) else f"{row.action} (decided at {then:g})"
            change = (logged, replayed if replayed is not None else NOT_SEARCHED.format(row.decision.value))
        tally.decision(calls_logged=row.llm_calls, calls_replayed=row.llm_calls, change=change, decision_id=row.id)
        # a person's time is what the bands spend (they change no LLM call)
        tally.handoff(logged=row.action == escalate, replayed=None if replayed is None else replayed == escalate)
        if row.truth is None:  # not rated, or the rating did not say what was right
            continue
        right: bool | None = row.action == row.truth
        if replayed is None:
            right = None  # what the wider search would have found was never logged
        elif replayed != row.action:
            right = replayed == row.truth
        tally.rating(logged_right=row.action == row.truth, replayed_right=right)
    return tally.report(
        decision_point="routing",
        parameter=parameter,
        current=current,
        value=value,
        weighting="not estimable: the bands are deterministic, their logs carry no propensities",
    )
