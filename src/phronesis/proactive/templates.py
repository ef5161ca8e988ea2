"""Candidates without an LLM: one message per concrete signal, from templates.

Seed 004 needs candidates to score; with no LLM configured (the embedded default) they
come from the signals themselves. Scores are derived, not invented: urgency is the
signal's hint, relevance the hint too (the agent that sent it judged its importance),
timing from how soon the signal's time is (``start``/``due``/``when`` in its data).
Messages follow the seed's self-threat framing rule: they equip, never correct.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from phronesis.proactive.models import Candidate, Signal

__all__ = ["category_for", "template_candidates", "timing_score"]

_CATEGORY_WORDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("deadline", "due", "overdue", "assignment"), "deadline_warning"),
    (("grade",), "grade_alert"),
    (("email", "mail", "inbox"), "email_alert"),
    (("calendar", "event", "meeting", "schedule", "class"), "schedule_info"),
    (("habit", "workout", "streak"), "habit"),
    (("task", "todo", "reminder"), "task_reminder"),
    (("memory", "recall"), "memory_recall"),
    (("wellbeing", "sleep", "stress", "mood"), "wellbeing"),
    (("friend", "social", "birthday"), "social"),
    (("briefing", "summary", "digest"), "briefing"),
)

_TEMPLATES = {
    "deadline_warning": ("{title} is due {when}. Want me to block some time for it?", "button_prompt"),
    "schedule_info": ("Heads-up: {title} {when}.", "text"),
    "email_alert": ("An email worth a look: {title}.", "text"),
    "grade_alert": ("New grade posted: {title}.", "text"),
    "task_reminder": ("{title} is on your list {when}. Want a reminder closer to it?", "button_prompt"),
    "habit": ("{title}: there's a window {when} if you want it.", "text"),
    "memory_recall": ("You mentioned {title} earlier; it might be handy now.", "text"),
    "wellbeing": ("{title}. A short break could fit {when}.", "text"),
    "social": ("{title} {when}.", "text"),
    "briefing": ("Your briefing: {title}.", "text"),
    "nudge": ("{title} {when}.", "text"),
}


def category_for(signal_type: str) -> str:
    words = signal_type.lower().replace(".", "_").replace("-", "_").split("_")
    for keys, category in _CATEGORY_WORDS:
        if any(w.startswith(k) for w in words for k in keys):
            return category
    return "nudge"


def _when(signal: Signal) -> datetime | None:
    for key in ("start", "due", "when", "at"):
        value = signal.data.get(key)
        if isinstance(value, str):
            try:
                parsed = datetime.fromisoformat(value)
            except ValueError:
                continue
            return parsed if parsed.tzinfo else None
    return None


def timing_score(signal: Signal, now: datetime) -> float:
    """Sooner is better timed: within an hour 9, six hours 7, a day 5, later 3; unknown 5."""
    when = _when(signal)
    if when is None:
        return 5.0
    hours = (when - now).total_seconds() / 3600
    if hours < -1:
        return 6.0  # already past: still worth saying (overdue), not urgent timing
    for limit, score in ((1, 9.0), (6, 7.0), (24, 5.0)):
        if hours <= limit:
            return score
    return 3.0


def _humanise(when: datetime | None, raw: object, now: datetime) -> str:
    if when is None:
        return str(raw)[:40] if raw else "soon"
    minutes = int((when - now).total_seconds() // 60)
    if minutes < 0:
        return "already"
    if minutes < 90:
        return f"in {max(minutes, 1)} min"
    if minutes < 36 * 60:
        return f"in about {round(minutes / 60)} h"
    return f"on {when.date().isoformat()}"


def signal_title(signal: Signal) -> str:
    """What a signal is about, as its template message names it (and its candidate's ``subject``)."""
    return subject_of(signal.type, signal.data)


def subject_of(signal_type: str, data: Mapping[str, object]) -> str:
    """``signal_title`` from a stored signal's type and data."""
    return str(data.get("title") or data.get("summary") or signal_type.replace("_", " "))[:200]


def template_candidates(signals: Sequence[Signal], now: datetime, *, limit: int) -> list[Candidate]:
    out = []
    # the most urgent first: what does not fit under ``limit`` waits for the next cycle (issue 48)
    for signal in sorted(signals, key=lambda s: -s.urgency_hint):
        if signal.context_only:
            continue
        category = category_for(signal.type)
        text, action = _TEMPLATES[category]
        title = signal_title(signal)
        when = _humanise(_when(signal), signal.data.get("when"), now)
        message = text.format(title=title[:1].upper() + title[1:], when=when).strip()
        out.append(
            Candidate(
                message=message,
                category=category,
                relevance=signal.urgency_hint,
                timing=timing_score(signal, now),
                urgency=signal.urgency_hint,
                trigger_signals=[signal.type],
                action_type=action,
                subject=title,
            )
        )
        if len(out) >= limit:
            break
    return out
