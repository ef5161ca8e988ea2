"""What each signal a cycle read became ("conservation"): one state, with its reason.

A cycle that got past the pre-filter must not mark every signal it read as used: the fourth
signal of a deep-trust user (three candidates at most) would be used up unseen, and an approved but
unsent LLM candidate's signals would be used because another candidate of their *type* was sent.
Here a signal is used only when something was decided about *it*:

- ``sent``: the message sent speaks for it (``folded``: the message speaks for it and others; it
  was not the message's first subject);
- ``deferred``: its candidate was kept as a deferred insight (seed 004 §6), until the insight expires;
- ``duplicate``: its candidate repeats a message sent recently;
- ``suppressed`` / ``opted_out``: its candidate's category is switched off for the user;
- ``below_threshold``: its candidate scored below the deferred floor (seed 004 §6: dropped);
- ``no_candidate``: the candidates were not full and none spoke for it (the LLM wrote none);
- ``context``: a context-only signal, read as background by the cycle's decision;
- ``expired``: an event whose moment passed before any message told it (never told late).

Everything else waits for the next cycle: a signal an approved candidate speaks for that was not
sent (one message per cycle), a signal beyond the candidate limit, every signal of a cycle blocked
at commit. A waiting signal that reaches its expiry unused is ``expired`` (``state_of``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from phronesis.proactive.models import Candidate, Signal, SignalOutcome
from phronesis.proactive.scoring import Scored
from phronesis.proactive.templates import identity_of, past_moment, signal_title

__all__ = ["Fate", "SignalOutcome", "SignalState", "covered_signals", "fates", "named", "state_of"]

SignalState = Literal["pending", "used"] | SignalOutcome
"""A stored signal's state now (``state_of``): what a cycle made of it, else pending or expired."""


@dataclass(frozen=True, slots=True)
class Fate:
    signal_id: str
    outcome: SignalOutcome
    reason: str
    """One line for a person: which message, which insight until when, which rule."""
    ref: str | None = None
    """The send (sent, folded), the insight (deferred) or the decision (the rest) it ended in."""


_WORD = re.compile(r"[a-z0-9]+")
_SMALL = frozenset({"the", "and", "for", "your", "you", "with", "from", "this", "that", "due", "are", "was"})


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _SMALL}


def _mentions(message: str, signal: Signal) -> bool:
    """The message names the signal's subject: at least half of its title's words (all of one or two)."""
    title = _words(signal_title(signal))
    if not title:
        return False
    return len(title & _words(message)) >= max(1, (len(title) + 1) // 2)


def covered_signals(candidate: Candidate, signals: Sequence[Signal]) -> set[str]:
    """The ids of the signals a candidate speaks for. A template candidate names its subject (the
    signal's title): that signal. An LLM candidate names types: the one signal of its type, or of
    several, those its message mentions. By type alone, one message sent for one of two
    ``deadline_approaching`` signals (car registration, daycare fee) would use both."""
    types = set(candidate.trigger_signals)
    of_type = [s for s in signals if s.type in types and not s.context_only]
    if candidate.subject is not None:  # a template's (title and moment), or the LLM's (a title)
        return {s.id for s in of_type if candidate.subject in (identity_of(s), signal_title(s))}
    by_type: dict[str, list[Signal]] = {}
    for signal in of_type:
        by_type.setdefault(signal.type, []).append(signal)
    out = set()
    for same in by_type.values():
        out |= {s.id for s in same} if len(same) == 1 else {s.id for s in same if _mentions(candidate.message, s)}
    return out


def named(candidate: Candidate, signals: Sequence[Signal]) -> Candidate:
    """An LLM candidate that speaks for one signal takes its title as its subject: what it is about,
    for the repeat check and for which signal it uses (a template candidate has one already)."""
    if candidate.subject is not None:
        return candidate
    covered = covered_signals(candidate, signals)
    if len(covered) != 1:
        return candidate
    [signal] = [s for s in signals if s.id in covered]
    return candidate.model_copy(update={"subject": identity_of(signal)})


def _excerpt(text: str, size: int = 80) -> str:
    return text if len(text) <= size else text[: size - 1] + "…"


def fates(
    signals: Sequence[Signal],
    scored: Sequence[Scored],
    chosen: Scored | None,
    *,
    send_id: str | None,
    insights: dict[int, tuple[str, datetime]],
    decision_id: str,
    candidates_full: bool,
    now: datetime,
) -> list[Fate]:
    """Each signal's end in this committed cycle; a signal with none waits for the next cycle.

    ``insights``: the deferred insight (id, expiry) saved for each deferred candidate, by the
    candidate's position in ``scored``. ``candidates_full``: the candidate limit was reached, so a
    signal no candidate speaks for was not judged (it waits) rather than passed over."""
    out: dict[str, Fate] = {}
    covers = [covered_signals(one.candidate, signals) for one in scored]  # once per candidate
    if chosen is not None and send_id is not None:
        mine = next(c for one, c in zip(scored, covers, strict=True) if one is chosen)  # chosen from scored
        covered = sorted(mine, key=lambda i: _order(signals, i))
        for position, signal_id in enumerate(covered):
            outcome: SignalOutcome = "sent" if position == 0 else "folded"
            out[signal_id] = Fate(signal_id, outcome, f'{outcome} in "{_excerpt(chosen.candidate.message)}"', send_id)
    waiting = set()
    for position, (one, covering) in enumerate(zip(scored, covers, strict=True)):
        if one is chosen:
            continue
        spoken = covering - set(out)
        if one.sendable:  # approved (or explored) but not sent: one message per cycle
            waiting |= spoken
            continue
        for signal_id in spoken - waiting:
            fate = _judged(one, signal_id, insights.get(position), decision_id)
            if fate is not None:
                out.setdefault(signal_id, fate)
    spoken = set().union(*covers)
    for signal in signals:
        if signal.id not in out and signal.id not in waiting:
            fate = _unspoken(signal, spoken, decision_id, candidates_full=candidates_full, now=now)
            if fate is not None:
                out[signal.id] = fate
    return list(out.values())


_WAITS: dict[str, str] = {
    "paused": "the tenant paused proactive messages",
    "opted_out": "the user opted out",
    "muted": "the user muted messages",
    "low_urgency": "its urgency is under the minimum for the user's trust level",
    "quiet_hours": "the user's quiet hours",
    "daily_cap": "the user's daily cap was reached",
    "cooldown": "the cooldown after the last message",
    "already_sent": "a message was sent in this cycle's slot",
    "sent": "one message a cycle, and another of the user's signals went first",
    "silent": "more signals than a cycle considers at once",
}


def waiting(reason: str) -> str | None:
    """Why a user's pending signals wait, after a cycle blocked with ``reason`` (kept on the signals, so
    one whose moment passes while it waits says what held it: "capped" rather than nothing)."""
    why = _WAITS.get(reason)
    return f"waiting: {why}" if why is not None else None


def _unspoken(
    signal: Signal, spoken: set[str], decision_id: str, *, candidates_full: bool, now: datetime
) -> Fate | None:
    """A signal no decided candidate ended: background, an event already past, or passed over."""
    if signal.context_only:
        return Fate(signal.id, "context", "read as background by the cycle's decision", decision_id)
    if (moment := past_moment(signal, now)) is not None:  # never told after the event
        reason = f"its moment ({moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC) passed before a message told it"
        if signal.outcome_reason:  # what held it meanwhile (the daily cap, quiet hours…)
            reason += f" ({signal.outcome_reason})"
        return Fate(signal.id, "expired", reason, decision_id)
    if not candidates_full and signal.id not in spoken:
        return Fate(signal.id, "no_candidate", "no candidate message spoke for it", decision_id)
    return None


def _order(signals: Sequence[Signal], signal_id: str) -> tuple[int, int]:
    """The first subject of a message: the most urgent of its signals, then the earliest given."""
    for index, signal in enumerate(signals):
        if signal.id == signal_id:
            return (-signal.urgency_hint, index)
    return (0, len(signals))


def _judged(one: Scored, signal_id: str, insight: tuple[str, datetime] | None, decision_id: str) -> Fate | None:
    verdict = one.verdict
    if verdict == "deferred":
        if insight is None:
            return None
        insight_id, until = insight
        return Fate(signal_id, "deferred", f"kept as a deferred insight until {until:%Y-%m-%d %H:%M} UTC", insight_id)
    if verdict == "duplicate":
        said = f': "{_excerpt(one.repeated)}"' if one.repeated else ""
        return Fate(signal_id, "duplicate", f"repeats a message sent recently{said}", decision_id)
    if verdict in ("suppressed", "opted_out"):
        types = sorted(set(one.candidate.trigger_signals))
        what = f"{', '.join(types)} messages" if types else f"category {one.candidate.category}"
        why = "switched off after ignored messages" if verdict == "suppressed" else "stopped by the user"
        return Fate(signal_id, verdict, f"{what} {why}", decision_id)
    if verdict == "below_threshold":
        return Fate(signal_id, "below_threshold", f"score {one.score:.2f} below the deferred floor", decision_id)
    return None


def state_of(signal: Signal, now: datetime) -> SignalState:
    """A stored signal's state now: its outcome once used, else pending until it expires."""
    if signal.outcome is not None:
        return signal.outcome
    if signal.consumed_at is not None:
        return "used"  # by a cycle before outcomes were kept (migration 0024): what became of it is unknown
    return "expired" if signal.expires_at <= now else "pending"
