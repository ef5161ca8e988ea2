"""How a heuristic pushed below the threshold by one undo can fire again.

Why: "no wait, cancel that, I am still unloading the car" after the garage heuristic fired takes it
from 0.8 to 0.533, and without this rule it never fires again (exploration is off by default): the
only way back is the manual confidence endpoint. The undo may have been about the moment, not the rule.

The rule: when a heuristic is the best match for an event and below the firing threshold only
because of its latest signal, and that signal was an implicit undo or complaint that alone took it
from at or above the threshold to below it, and at least ``probation_after_sec`` (1 hour) have
passed since, it fires once more, as a **probation** fire (``reason: probation``). If that fire
goes well (no undo or complaint within the window, thanks, or a positive rating), the undo is taken
back: its evidence removed, the history saying ``recovered``. If it is undone again, the undo
stands; the second undo did not cross the threshold, so no probation follows it, and the heuristic
waits for a rating or the confidence endpoint. Only an event it matches can bring it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from phronesis.clock import Clock
from phronesis.executive.types import DecisionContext, HeuristicCandidate
from phronesis.heuristics.repository import HeuristicRepository

__all__ = ["PROBATION_SOURCES", "Probation", "RecoveryRule"]

PROBATION_SOURCES = frozenset({"implicit_undo", "implicit_complaint"})
"""The signals "about the moment" a probation fire can take back; never a rating someone gave."""


@dataclass(frozen=True, slots=True)
class Probation:
    candidate: HeuristicCandidate
    undo_key: str
    """The key of the undo the probation fire takes back if it goes well."""
    why: str


class RecoveryRule:
    def __init__(self, repository: HeuristicRepository, clock: Clock, *, after_sec: float, enabled: bool) -> None:
        self._repository = repository
        self._clock = clock
        self._after = timedelta(seconds=after_sec)
        self.enabled = enabled

    async def probation(self, tenant: str, context: DecisionContext, threshold: float) -> Probation | None:
        """A probation fire for this event's best candidate, when the rule allows one."""
        if not self.enabled or not context.candidates:
            return None
        best = context.candidates[0]
        if best.confidence >= threshold:
            return None
        last = await self._repository.last_evidence(tenant, best.heuristic_id)
        if last is None or last["source"] not in PROBATION_SOURCES or last["positive"] or not last["signal_key"]:
            return None
        if not last["old_confidence"] >= threshold > last["new_confidence"]:
            return None  # not this one signal that took it below: a second undo, or one of several
        if self._clock.now() - last["created_at"] < self._after:
            return None
        what = last["source"].removeprefix("implicit_")
        why = (
            f"on probation: one {what} took it from {last['old_confidence']:.2f} to {last['new_confidence']:.2f}, "
            f"below the threshold {threshold:.2f}, at {last['created_at']:%Y-%m-%d %H:%M} UTC; if this fire goes well, "
            "that is taken back"
        )
        return Probation(best, str(last["signal_key"]), why)
