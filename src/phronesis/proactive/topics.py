"""What a user stopped, by the words they used (seed 004 §5's opt-out, scoped).

"Unsubscribe from weather", "stop the bill reminders", "no more deadline texts": a reply names
a *topic*, a word, not one of our signal types or categories. A topic is kept as that word and
matched against each candidate's signal types when a cycle runs, so "weather" stops
``weather_alert`` and ``weather.rain`` alike, "bills" stops ``bill_due`` and ``rent_due`` (the same
kind of thing), and a type the user never saw yet is stopped too. A topic never stops a signal of
another kind: stopping weather must not silence "School pickup… in 60 min", which was the bug
of a catch-all category.

Each topic is kept with when it ends: ``None`` for an opt-out (until opted back in), a time for a
mute ("no weather for a week").
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime

from phronesis.proactive.templates import category_for, kind_of, type_words

__all__ = [
    "active_topics",
    "candidate_stopped",
    "opted_out_of",
    "known_topic",
    "singular",
    "topic_covers_category",
    "topic_covers_type",
]

_EVERYDAY = frozenset(
    {
        "weather", "rain", "forecast", "traffic", "news", "stock", "market", "sport", "score", "horoscope", "health",
        "step", "workout", "sleep", "commute", "flight", "train", "bus", "transit", "package", "parcel", "order",
        "shopping", "deal", "price", "sale",
    }
)
"""Topics agents commonly send about that no message kind or category names: "no more weather"
means the weather alerts, where "no more excuses" means nothing about messages."""


def singular(word: str) -> str:
    """A crude singular, enough to match "bills" to ``bill_due`` and "deadlines" to ``deadline``."""
    if len(word) <= 3 or word.endswith(("ss", "us", "is", "news")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def _specific_category(words: Sequence[str]) -> str | None:
    category = category_for("_".join(words))
    return None if category == "nudge" else category


def known_topic(word: str) -> bool:
    """A word that names something proactive messages are about (a kind, a category, an everyday topic)."""
    return word in _EVERYDAY or kind_of([word]) != "note" or _specific_category([word]) is not None


def topic_covers_type(topic: str, signal_type: str) -> bool:
    """The topic word names this signal type: one of its words, the same kind of thing (a bill, a
    deadline, a delivery…) or the same specific category (an email, a birthday…)."""
    words = [singular(w) for w in type_words(signal_type)]
    if topic == signal_type or topic in words:
        return True
    kind = kind_of([topic])
    if kind != "note" and kind == kind_of(words):
        return True
    category = _specific_category([topic])
    return category is not None and category == _specific_category(words)


def topic_covers_category(topic: str, category: str) -> bool:
    """The topic word names this category (a message no signal type stands behind, e.g. the LLM's)."""
    return topic in category.split("_") or _specific_category([topic]) == category


def active_topics(topics: Mapping[str, str | datetime | None] | None, now: datetime) -> frozenset[str]:
    """The topics stopped at ``now``: opt-outs (no end) and mutes not yet over (an end as a time or
    as stored, in ISO form)."""
    out = set()
    for topic, until in (topics or {}).items():
        end = datetime.fromisoformat(until) if isinstance(until, str) else until
        if end is None or end > now:
            out.add(topic)
    return frozenset(out)


def candidate_stopped(topics: Iterable[str], signal_types: Sequence[str], category: str) -> bool:
    """Every signal the candidate is about is of a stopped topic (a candidate about the school
    pickup *and* the weather still goes: the pickup was not stopped); with no signal types, its
    category is named by a stopped topic."""
    stopped = tuple(topics)
    if not stopped:
        return False
    if signal_types:
        return all(any(topic_covers_type(t, signal_type) for t in stopped) for signal_type in signal_types)
    return any(topic_covers_category(t, category) for t in stopped)


def opted_out_of(
    signal_types: Sequence[str],
    category: str,
    *,
    everything: bool,
    categories: Collection[str],
    stopped: Iterable[str],
    allowed: Iterable[str],
) -> bool:
    """The user's own controls switch this message off: everything or its category is off and it
    is no exception they asked for again (``allowed``), or a topic they stopped covers it. One rule
    for scoring, for the commit's re-check and for the insights a reply hands back."""
    if (everything or category in categories) and not candidate_stopped(allowed, signal_types, category):
        return True
    return candidate_stopped(stopped, signal_types, category)
