"""Candidates without an LLM: one message per concrete signal, from templates.

Seed 004 needs candidates to score; with no LLM configured (the embedded default) they
come from the signals themselves. Scores are derived, not invented: urgency is the
signal's hint, relevance the hint too (the agent that sent it judged its importance),
timing from how soon the signal's time is (``start``/``due``/``when`` in its data).
Messages follow the seed's self-threat framing rule: they equip, never correct.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo

from phronesis.proactive.models import Candidate, Signal

__all__ = [
    "better_timed_at",
    "category_for",
    "identity",
    "identity_of",
    "is_event",
    "kind_of",
    "moment_of",
    "moment_passed",
    "past_moment",
    "render",
    "signal_title",
    "subject_of",
    "template_candidates",
    "timing_score",
    "type_words",
    "when_words",
]

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

def category_for(signal_type: str) -> str:
    words = type_words(signal_type)
    for keys, category in _CATEGORY_WORDS:
        if any(w.startswith(k) for w in words for k in keys):
            return category
    return "nudge"


def moment_of(signal: Signal) -> datetime | None:
    """The signal's moment (its start, due time…) from its data, when it gives one with its offset."""
    return moment_in(signal.data)


def moment_in(data: Mapping[str, object], keys: Sequence[str] = ("start", "due", "when", "at")) -> datetime | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str):
            try:
                parsed = datetime.fromisoformat(value)
            except ValueError:
                continue
            return parsed if parsed.tzinfo else None
    return None


def _day_timing(signal: Signal, now: datetime) -> float | None:
    """A busy or empty day is worth hearing the evening before (six hours before it starts) or on
    its morning (its first twelve hours): 7; at any other time 3. None: not a day signal."""
    start = signal.data.get("day_start")
    if _kind(signal) not in ("busy_day", "empty_day") or not isinstance(start, str):
        return None
    try:
        hours = (datetime.fromisoformat(start) - now).total_seconds() / 3600
    except (ValueError, TypeError):
        return None
    return 7.0 if -12 < hours <= 6 else 3.0


def timing_score(signal: Signal, now: datetime) -> float:
    """Sooner is better timed: within an hour 9, six hours 7, a day 5, later 3; unknown 5 (a day
    signal: ``_day_timing``)."""
    day = _day_timing(signal, now)
    if day is not None:
        return day
    when = moment_of(signal)
    if when is None:
        return 5.0
    hours = (when - now).total_seconds() / 3600
    if hours < -1:
        return 6.0  # already past: still worth saying (overdue), not urgent timing
    for limit, score in _TIMING_STEPS:
        if hours <= limit:
            return score
    return 3.0


_TIMING_STEPS = ((1, 9.0), (6, 7.0), (24, 5.0))
"""Hours before its moment from which a signal's timing scores 9, 7 and 5 (3 before)."""


def better_timed_at(signal: Signal, now: datetime) -> datetime | None:
    """When the signal's timing next improves (a day, six hours, an hour before its moment): a
    deferral now may be approved then. None: no moment, or no step left."""
    when = moment_of(signal)
    if when is None or _day_timing(signal, now) is not None:
        return None
    steps = [when - timedelta(hours=limit) for limit, _ in _TIMING_STEPS]
    return min((step for step in steps if step > now), default=None)


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")  # fmt: skip


def _day_words(day: date, today: date) -> str:
    """A day as a person says it: today, tomorrow, on Friday (within the week), on 12 March."""
    if day == today:
        return "today"
    if day == today + timedelta(days=1):
        return "tomorrow"
    if day == today - timedelta(days=1):
        return "yesterday"
    if today < day <= today + timedelta(days=6):
        return f"on {day:%A}"
    return f"on {day.day} {_MONTHS[day.month - 1]}"


def when_words(when: datetime, now: datetime, zone: tzinfo) -> str:
    """A moment in the user's zone and words: "in 45 minutes", "today at 14:30", "tomorrow at
    09:00", "on Friday at 09:00", "on 12 March at 09:00"; never "in about 4 h" or "on 2026-03-12",
    nor "soon" for no time and "already" for a past one."""
    minutes = (when - now).total_seconds() / 60
    if 0 <= minutes < 90:
        return f"in {max(1, round(minutes))} minute{'s' if round(minutes) != 1 else ''}"
    local = when.astimezone(zone)
    return f"{_day_words(local.date(), now.astimezone(zone).date())} at {local:%H:%M}"


def _date_of(signal: Signal) -> date | None:
    value = signal.data.get("date")
    if isinstance(value, str):
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


def signal_title(signal: Signal) -> str:
    """What a signal is about, as its template message names it (and its candidate's ``subject``)."""
    return subject_of(signal.type, signal.data)


def subject_of(signal_type: str, data: Mapping[str, object]) -> str:
    """``signal_title`` from a stored signal's type and data."""
    return str(data.get("title") or data.get("summary") or signal_type.replace("_", " "))[:200]


def identity(signal_type: str, data: Mapping[str, object]) -> str:
    """What a signal is about, for repeats and for which signal a message tells: its title and, when
    it has one, its moment. Two "Team meeting" signals at 10:00 and 15:00 are two subjects: by title
    alone the second would be dropped as a repeat of the first (the month bench: 58 urgent signals)."""
    moment = moment_in(data)
    title = subject_of(signal_type, data)
    if moment is not None:
        return f"{title} @ {moment.astimezone(UTC):%Y-%m-%dT%H:%MZ}"
    day = data.get("date")  # a birthday's, an anniversary's
    return f"{title} @ {day}" if isinstance(day, str) else title


def identity_of(signal: Signal) -> str:
    return identity(signal.type, signal.data)


_EVENT_WORDS = ("calendar", "event", "meeting", "class", "lecture", "appointment", "schedule", "call", "pickup")
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:am|pm)\b", re.IGNORECASE)
_BIRTHDAY = re.compile(r"^(?P<who>[A-Z][\w-]*(?: [A-Z][\w-]*)?)(?:'s|’s)? birthday$")


_KINDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("busy",), "busy_day"),
    (("empty", "free"), "empty_day"),
    (("moved", "changed", "change", "reschedul", "updated"), "moved"),
    (("bill", "payment", "invoice", "rent", "fee", "subscription"), "bill"),
    (("delivered",), "delivered"),
    (("deliver", "package", "parcel", "shipment", "order"), "delivery"),
    (("birthday", "anniversary"), "birthday"),
    (("deadline", "due", "assignment", "exam", "task", "todo"), "deadline"),
    (_EVENT_WORDS, "event"),
    (("email", "mail", "inbox"), "email"),
    (("grade",), "grade"),
)


def kind_of(words: Sequence[str]) -> str:
    """Which kind of thing these words (a signal type's, or a reply's) are about: ``bill``,
    ``deadline``, ``event``…; ``note`` when none is recognised."""
    for keys, kind in _KINDS:
        if any(w.startswith(k) for w in words for k in keys):
            return kind
    return "note"


def type_words(signal_type: str) -> list[str]:
    """A signal type's words: ``weather_alert`` → ``weather``, ``alert``."""
    return signal_type.lower().replace(".", "_").replace("-", "_").split("_")


def _kind(signal: Signal) -> str:
    """Which message a signal reads as, by its type's words (a delivery by its status too)."""
    kind = kind_of(type_words(signal.type))
    if kind == "delivery" and str(signal.data.get("status", "")).lower() == "delivered":
        return "delivered"
    return kind


def is_event(signal: Signal) -> bool:
    """A signal about something that happens at a moment (a meeting, a pickup): a message about it
    after that moment says nothing worth hearing ("Heads-up: Dentist appointment already." an
    hour after the appointment)."""
    return _kind(signal) in ("event", "moved") or not _FORECAST.isdisjoint(type_words(signal.type))


_FORECAST = frozenset({"alert", "warning", "forecast", "watch"})
"""Types that announce something to come (``weather_alert``): once it has begun with no end given,
the warning is late (not "Storm warning, yesterday at 23:00.")."""


def _end_of(signal: Signal) -> datetime | None:
    """When the thing ends, where the signal says (``until``, ``end``, ``ends``)."""
    return moment_in(signal.data, keys=("until", "end", "ends"))


def moment_passed(signal: Signal, now: datetime) -> bool:
    """The signal's moment (its start, due time…) is behind ``now``."""
    when = moment_of(signal)
    return when is not None and when <= now


def past_moment(signal: Signal, now: datetime) -> datetime | None:
    """The moment of an event signal, when it has passed (its end, when it gives one); None otherwise."""
    when = _end_of(signal) or moment_of(signal)
    return when if when is not None and when <= now and is_event(signal) else None


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else f"{text}."


@dataclass(frozen=True, slots=True)
class _Said:
    """What a message can say of a signal: its title, its moment in words, its day in words."""

    title: str
    at: str | None
    on_day: str | None
    past: bool

    @property
    def when(self) -> str | None:
        return self.at or self.on_day


def _moved(said: _Said) -> str:
    own_time = _CLOCK.search(said.title) is not None  # "…moved to 14:30": not "…in about 4 h" too
    return f"Change of plan: {said.title}" + ("" if own_time or said.at is None else f", now {said.at}")


def _birthday(said: _Said) -> str:
    match = _BIRTHDAY.match(said.title)
    who = f"{match.group('who')}'s birthday" if match else said.title
    return f"{who} is {said.when}" if said.when else who


def _event(said: _Said) -> str:
    return f"Heads-up: {said.title} " + (f"starts {said.at}" if said.at else f"is {said.on_day or 'coming up'}")


_SAYS_ARRIVED = re.compile(
    r"\b(?:deliver\w*|left|dropped off|arrived|handed|collected|signed for|at (?:the|your) door)\b", re.IGNORECASE
)
"""A delivery's title that already says it arrived ("Parcel left at the door") is said as it is, not
"Parcel was left at the door has been delivered"."""


def _deadline(said: _Said) -> str:
    if said.past:
        return f"{said.title} was due {said.at}"
    return f"{said.title} is due {said.when}" if said.when else f"{said.title} is coming up"


def _bill(said: _Said) -> str:
    return f"{said.title} {'was' if said.past else 'is'} due {said.when}" if said.when else f"{said.title} is due"


_WRITE: dict[str, tuple[Callable[[_Said], str], str]] = {
    "busy_day": (lambda w: f"{w.on_day or 'The day'} looks busy: {w.title}", "text"),
    "empty_day": (lambda w: f"{w.on_day or 'The day'} is free: {w.title}", "text"),
    "moved": (_moved, "text"),
    "bill": (_bill, "text"),
    "delivered": (lambda w: w.title if _SAYS_ARRIVED.search(w.title) else f"{w.title} has been delivered", "text"),
    "delivery": (lambda w: f"{w.title} should arrive {w.when}" if w.when else f"{w.title} is on its way", "text"),
    "birthday": (_birthday, "text"),
    "deadline": (_deadline, "button_prompt"),
    "event": (_event, "text"),
    "email": (lambda w: f"An email worth a look: {w.title}", "text"),
    "grade": (lambda w: f"New grade posted: {w.title}", "text"),
    "note": (lambda w: w.title + (f", {w.when}" if w.when else ""), "text"),
}


def _clock_words(at: datetime, now: datetime, zone: tzinfo) -> str:
    """A moment as a clock time in the user's zone, with its day when not today: "06:04",
    "01:00 tomorrow", "06:00 on Thursday", "06:00 on 3 Apr" (for "from … until …")."""
    local = at.astimezone(zone)
    days = (local.date() - now.astimezone(zone).date()).days
    clock = f"{local:%H:%M}"
    if days == 0:
        return clock
    if days == 1:
        return f"{clock} tomorrow"
    return f"{clock} on {local:%A}" if 1 < days < 7 else f"{clock} on {local.day} {local:%b}"


def render(signal: Signal, now: datetime, zone: tzinfo = UTC) -> tuple[str, str]:
    """The message a person would write for a signal, and its action type (``button_prompt`` asks
    a yes/no). Times are in the user's zone and words; a title that says its own time is not given
    another; nothing says "soon" or "already"; only a deadline offers to block time ("Want me
    to block some time for it?"), not every bill."""
    when, day = moment_of(signal), _date_of(signal)
    today = now.astimezone(zone).date()
    said = _Said(
        title=signal_title(signal),
        at=when_words(when, now, zone) if when is not None else None,
        on_day=_day_words(day, today) if day is not None else None,
        past=when is not None and when <= now,
    )
    write, action = _WRITE[_kind(signal)]
    end = _end_of(signal)
    if end is not None and end > now and is_event(signal) and _CLOCK.search(said.title) is None:
        # a warning that lasts: "Thunderstorm warning until 06:04", not the hour it began
        # (not "Thunderstorm warning, today at 02:04." read at 03:05)
        until = _clock_words(end, now, zone)
        text = _sentence(f"{said.title} until {until}" if said.past or when is None
                         else f"{said.title} from {_clock_words(when, now, zone)} until {until}")  # fmt: skip
    else:
        text = _sentence(write(said))
    if action == "button_prompt" and said.past:
        return text, "text"  # overdue: nothing left to block time for
    if action == "button_prompt":
        return f"{text} Want me to block some time for it?", action
    return text, action


def template_candidates(
    signals: Sequence[Signal], now: datetime, *, limit: int, zone: tzinfo = UTC
) -> list[Candidate]:
    """One candidate per concrete signal, the most urgent first, at most ``limit``; an event whose
    moment has passed has none (``past_moment``: its signal ends expired, not told late)."""
    out = []
    # the most urgent first: what does not fit under ``limit`` waits for the next cycle
    for signal in sorted(signals, key=lambda s: -s.urgency_hint):
        if signal.context_only or past_moment(signal, now) is not None:
            continue
        category = category_for(signal.type)
        message, action = render(signal, now, zone)
        out.append(
            Candidate(
                message=message,
                category=category,
                relevance=signal.urgency_hint,
                timing=timing_score(signal, now),
                urgency=signal.urgency_hint,
                trigger_signals=[signal.type],
                action_type=action,
                subject=identity_of(signal),
            )
        )
        if len(out) >= limit:
            break
    return out
