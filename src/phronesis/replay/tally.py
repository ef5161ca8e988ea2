"""What every replay counts, decision by decision, and the report it makes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from phronesis.replay.estimators import Weighted, direct, ips, snips
from phronesis.replay.models import Change, ReplayReport
from phronesis.tenant_settings import SettingValue

__all__ = ["EXAMPLES", "Tally"]

EXAMPLES = 3
"""Decision ids a report names per kind of change (``Change.examples``)."""


@dataclass(slots=True)
class Tally:
    decisions: int = 0
    changed: int = 0
    calls_logged: int = 0
    calls_replayed: int = 0
    rated: int = 0
    logged_right: int = 0
    needed: int = 0
    """Decisions whose outcome under the replayed setting the estimate needs: the rated ones, or
    for proactive the cycles the replayed setting sends in."""
    covered: int = 0
    """Of ``needed``, those whose outcome under the replayed setting the logs establish."""
    replayed_right: int = 0
    sent_logged: int = 0
    sent_replayed: int = 0
    counts_handoffs: bool = False
    """Routing's bands: the report counts turns handed to a person (else its counts are None)."""
    handoffs_logged: int = 0
    handoffs_replayed: int = 0
    handoffs_unsettled: int = 0
    """Turns handed to a person, logged and replayed; turns whose replayed decision the logs
    cannot settle, counted apart."""
    changes: Counter[tuple[str, str]] = field(default_factory=Counter)
    examples: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def decision(
        self,
        *,
        calls_logged: int,
        calls_replayed: int,
        change: tuple[str, str] | None,
        decision_id: str | None = None,
    ) -> None:
        """One logged decision replayed: what it cost then and would cost now, and how it changed
        (the first few changed decisions of each kind are kept, to be looked up)."""
        self.decisions += 1
        self.calls_logged += calls_logged
        self.calls_replayed += calls_replayed
        if change is not None:
            self.changed += 1
            self.changes[change] += 1
            kept = self.examples.setdefault(change, [])
            if decision_id is not None and len(kept) < EXAMPLES:
                kept.append(decision_id)

    def handoff(self, *, logged: bool, replayed: bool | None) -> None:
        """Routing's bands: whether the logged and the replayed decision hand the turn to a person
        (``replayed`` None: the logs cannot say, so it is not counted as a hand-off)."""
        self.handoffs_logged += logged
        self.handoffs_replayed += bool(replayed)
        self.handoffs_unsettled += replayed is None

    def rating(self, *, logged_right: bool, replayed_right: bool | None) -> None:
        """A rated decision: whether the logged one was right, and the replayed one (None: unknown)."""
        self.logged(right=logged_right)
        self.replayed(right=replayed_right)

    def logged(self, *, right: bool) -> None:
        """A rated logged decision: the current setting's success counts it."""
        self.rated += 1
        self.logged_right += right

    def replayed(self, *, right: bool | None) -> None:
        """A replayed decision the estimate needs the outcome of (None: the logs do not say)."""
        self.needed += 1
        if right is not None:
            self.covered += 1
            self.replayed_right += right

    def report(
        self,
        *,
        decision_point: str,
        parameter: str,
        current: SettingValue,
        value: SettingValue,
        weighting: str,
        weighted: Sequence[Weighted] | None = None,
        over: int = 0,
    ) -> ReplayReport:
        """The report; ``weighted``: the decisions the inverse-propensity estimates rest on, over
        ``over`` decisions (None, or ``over`` 0: the logs carry no propensities to weigh by)."""
        estimable = weighted is not None and over > 0
        return ReplayReport(
            decision_point=decision_point,
            parameter=parameter,
            current=current,
            value=value,
            decisions=self.decisions,
            changed=self.changed,
            changes=[
                Change(logged=a, replayed=b, decisions=n, examples=self.examples.get((a, b), []))
                for (a, b), n in self.changes.most_common(20)
            ],
            llm_calls_logged=self.calls_logged,
            llm_calls_replayed=self.calls_replayed,
            current_success=direct(self.logged_right, self.rated),
            replayed_success=direct(self.replayed_right, self.covered),
            coverage=self.covered / self.needed if self.needed else 0.0,
            ips=ips(weighted, over) if estimable and weighted is not None else None,
            snips=snips(weighted, over) if estimable and weighted is not None else None,
            weighting=weighting,
            sent_logged=self.sent_logged if decision_point == "proactive" else None,
            sent_replayed=self.sent_replayed if decision_point == "proactive" else None,
            handoffs_logged=self.handoffs_logged if self.counts_handoffs else None,
            handoffs_replayed=self.handoffs_replayed if self.counts_handoffs else None,
            handoffs_unsettled=self.handoffs_unsettled if self.counts_handoffs else None,
        )
