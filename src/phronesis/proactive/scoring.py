"""Seed 004 §6 and ORIGINS §4 (``rules.py:score_and_filter``): which candidate, if any, is sent.

- composite = 0.4·relevance + 0.35·timing + 0.25·urgency (weights configurable, relative: a
  weighted mean, so the score stays 0-10 whatever they sum to);
- categories and topics the user opted out of are dropped, and so are suppressed
  signal types (urgent ones excepted);
- a candidate repeating a recent message (the same subject; when a subject is unknown, a
  sentence the local model reads alike, or without a model word overlap > 0.6) is dropped. The
  original let explored candidates skip this check; here nothing does;
- at or above the trust threshold: approved;
- within ``exploration_band`` below it (and ≥ ``deferred_min_score``): explored with
  probability ``exploration_rate`` from a seeded RNG, else deferred;
- ``deferred_min_score`` ≤ composite < threshold: a deferred insight for the reactive side.

Every candidate's verdict carries the probability it had, so a send or a silence can be
weighed later by inverse propensity (ANCHORS: deterministic thresholds give no support).
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from phronesis.proactive.meaning import NO_MEANINGS, Meanings
from phronesis.proactive.models import Candidate
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.suppression import topics_of
from phronesis.proactive.topics import opted_out_of

__all__ = [
    "PARTS",
    "Scored",
    "Weights",
    "by_wording",
    "composite",
    "repeats",
    "score_candidates",
    "weigh",
    "word_overlap",
]

_WORD = re.compile(r"[a-z0-9']+")

Verdict = Literal["approved", "explored", "deferred", "below_threshold", "duplicate", "suppressed", "opted_out"]


@dataclass(frozen=True, slots=True)
class Scored:
    candidate: Candidate
    score: float
    verdict: Verdict
    probability: float
    """The probability of this verdict given the candidate's score (exploration is the only chance)."""
    repeated: str | None = None
    """For a duplicate, the recent message it repeats."""

    @property
    def sendable(self) -> bool:
        return self.verdict in ("approved", "explored")


PARTS = ("relevance", "timing", "urgency")
"""Seed 004's composite's parts, each 0-10, each with a weight (a tenant's: ``proactive.weight.<part>``)."""


@dataclass(frozen=True, slots=True)
class Weights:
    """The composite's weights: the server's (``ProactiveSettings``), or a tenant's own
    (``proactive.weight.<part>``), read at each cycle with the trust thresholds."""

    relevance: float = 0.4
    timing: float = 0.35
    urgency: float = 0.25

    @classmethod
    def of(cls, settings: ProactiveSettings, tuned: Mapping[str, float] | None = None) -> Weights:
        """The configured weights, with the tenant's values (``weight.<part>``) over them."""
        tuned = tuned or {}
        return cls(
            relevance=tuned.get("weight.relevance", settings.relevance_weight),
            timing=tuned.get("weight.timing", settings.timing_weight),
            urgency=tuned.get("weight.urgency", settings.urgency_weight),
        )

    def replace(self, part: str, value: float) -> Weights:
        return dataclasses.replace(self, **{part: value})

    def info(self) -> dict[str, float]:
        return {"relevance": self.relevance, "timing": self.timing, "urgency": self.urgency}


def weigh(relevance: float, timing: float, urgency: float, weights: Weights) -> float:
    """Seed 004's composite of three 0-10 parts, a weighted mean: the weights are relative (the
    seed's sum to 1), so a tuned weight moves the score within 0-10 and the trust thresholds keep
    their meaning (weights summing to 1.15 would score a candidate 11.15 and send everything).
    Also what a replay of the weights rescores a logged candidate with (``replay.proactive``)."""
    total = weights.relevance + weights.timing + weights.urgency
    if total <= 0.0:
        return 0.0
    mean = (weights.relevance * relevance + weights.timing * timing + weights.urgency * urgency) / total
    return round(mean, 2)


def composite(candidate: Candidate, weights: Weights) -> float:
    return weigh(candidate.relevance, candidate.timing, candidate.urgency, weights)


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def word_overlap(candidate: str, recent: str) -> float:
    """|C ∩ R| / |C|: how much of the candidate's vocabulary a recent message already used."""
    words = _words(candidate)
    return len(words & _words(recent)) / len(words) if words else 0.0


_TIME_PHRASE = re.compile(
    r"\b(?:in\s+)?(?:about\s+|around\s+|~)?\d+(?:[.,]\d+)?\s*(?:h|hrs?|hours?|m|mins?|minutes?|d|days?|weeks?)\b"
    r"|\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:am|pm)\b"
    r"|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b",
    re.IGNORECASE,
)


_AMOUNT = re.compile(
    r"[$€£¥]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:usd|eur|gbp|dollars|euros|pounds)\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|-?\d+(?:[.,]\d+)?\s?°[cf]?",
    re.IGNORECASE,
)
"""Numbers that name no thing: amounts, ordinal dates ("the 15th"), temperatures."""

_NEWS = re.compile(
    r"\b(?:moved|rescheduled|cancell?ed|delayed|postponed|delivered|arrived|failed|overdue|changed|updated"
    r"|declined|approved|missed|back online)\b",
    re.IGNORECASE,
)
"""Words that report a change: a message saying one its predecessor did not is news, not a repeat."""


def _identifiers(text: str) -> frozenset[str]:
    """The words with a digit that name something (a course code, a set number), the numbers of
    time phrases, amounts and ordinal dates left out: the "4" of "due in about 4 h" names no
    problem set, the "$42" of "the water bill of $42" no other bill."""
    plain = _TIME_PHRASE.sub(" ", _AMOUNT.sub(" ", text))
    return frozenset(w for w in _words(plain) if any(ch.isdigit() for ch in w))


def _news(candidate: str, recent: str) -> bool:
    """The candidate reports a change the recent message did not ("moved", "delivered")."""
    return bool({w.lower() for w in _NEWS.findall(candidate)} - {w.lower() for w in _NEWS.findall(recent)})


def repeats(
    candidate: str, recent: str, overlap: float, *, likeness: float | None = None, similar: float = 0.75
) -> bool:
    """Whether a candidate says again what a recent message said. Both ways, every identifier it
    names (a word with a digit: a course code, a set number) is one the recent message names too:
    "MA1521 lab report" shares two words of three with "CS2103 lab report is due" and is no repeat
    of it: different identifiers, different things. A time phrase's number is no identifier:
    "Problem set 4" is not a repeat of "Problem set 3 is due in about 4 h".
    And a change reported ("moved to 15:00", "delivered") is news. Then: by meaning when the
    sentences' ``likeness`` is known (cosine at least ``similar``: ``meaning``), else by words
    (more than ``overlap`` of the candidate's words)."""
    if not _identifiers(candidate) <= _identifiers(recent) or _news(candidate, recent):
        return False
    if likeness is not None:
        return likeness >= similar
    return word_overlap(candidate, recent) > overlap


def by_wording(
    candidates: Sequence[Candidate], recent: Sequence[str], subjects: Mapping[str, frozenset[str]]
) -> set[str]:
    """The texts the repeat check compares by their words or meaning, not by what they are about:
    each pair where the candidate's subject or the recent message's is unknown (``meaning``
    embeds these, and only these)."""
    unknown = [message for message in recent if not subjects.get(message)]
    out: set[str] = set()
    for candidate in candidates:
        compared = recent if candidate.subject is None else unknown
        if compared:
            out.add(candidate.message)
            out.update(compared)
    return out


def _repeated(
    candidate: Candidate,
    recent: Sequence[str],
    overlap: float,
    subjects: Mapping[str, frozenset[str]],
    meanings: Meanings,
    similar: float,
) -> str | None:
    """The recent message the candidate says again, if any: by what both are about when both are
    known (the candidate's subject, the titles of the signals a recent message was sent for), else
    by meaning (the local model), else by their words. Words alone fail both ways: "Tax form W-9"
    from a template and an LLM's rewording of it are other words, same subject; an urgency-9
    "Roster preferences…" and another deadline worded alike are same words, other subject."""
    for message in recent:
        about = subjects.get(message)
        if candidate.subject is not None and about:
            if candidate.subject.casefold() in {title.casefold() for title in about}:
                return message
            continue
        likeness = meanings.likeness(candidate.message, message)
        text = candidate.message if likeness is not None else candidate.subject or candidate.message
        if repeats(text, message, overlap, likeness=likeness, similar=similar):
            return message
    return None


def score_candidates(
    candidates: Sequence[Candidate],
    *,
    threshold: float,
    recent_messages: Iterable[str],
    suppressed: frozenset[str],
    settings: ProactiveSettings,
    rng: random.Random,
    opted_out: frozenset[str] = frozenset(),
    stopped_topics: frozenset[str] = frozenset(),
    allowed_topics: frozenset[str] = frozenset(),
    everything_off: bool = False,
    weights: Weights | None = None,
    recent_subjects: Mapping[str, frozenset[str]] | None = None,
    meanings: Meanings = NO_MEANINGS,
) -> list[Scored]:
    """Every candidate with its verdict, best score first (sendable ones before the rest).
    ``suppressed``: the topics feedback switched off (``suppression.topics_of``); ``opted_out``:
    categories and ``stopped_topics``: topics the user stopped (``topics``), ``everything_off``: the
    user opted out of everything, except ``allowed_topics``, which pass a category's opt-out too;
    ``weights``: the tenant's (None: the configured ones)."""
    recent = list(recent_messages)
    weights = weights or Weights.of(settings)
    out = []
    for candidate in candidates:
        score = composite(candidate, weights)
        if opted_out_of(
            candidate.trigger_signals,
            candidate.category,
            everything=everything_off,
            categories=opted_out,
            stopped=stopped_topics,
            allowed=allowed_topics,
        ):
            out.append(Scored(candidate, score, "opted_out", 1.0))
        elif topics_of(candidate.category, candidate.trigger_signals) <= suppressed and (
            candidate.urgency < settings.urgent_threshold
        ):
            # an inferred mute (ignored sends) mutes the signal types ignored, and never holds back
            # an urgent message (five ignored weather alerts must not hold back "School pickup… in
            # 60 min" at urgency 8); only the user's own opt-out does
            out.append(Scored(candidate, score, "suppressed", 1.0))
        elif (said := _repeated(candidate, recent, settings.dedup_overlap, recent_subjects or {}, meanings,
                                settings.repeat_similarity)) is not None:  # fmt: skip
            out.append(Scored(candidate, score, "duplicate", 1.0, said))
        elif score >= threshold:
            out.append(Scored(candidate, score, "approved", 1.0))
        elif score >= max(threshold - settings.exploration_band, settings.deferred_min_score):
            rate = settings.exploration_rate
            if rate > 0 and rng.random() < rate:
                out.append(Scored(candidate, score, "explored", rate))
            else:
                out.append(Scored(candidate, score, "deferred", 1.0 - rate))
        elif score >= settings.deferred_min_score:
            out.append(Scored(candidate, score, "deferred", 1.0))
        else:
            out.append(Scored(candidate, score, "below_threshold", 1.0))
    out.sort(key=lambda s: (not s.sendable, -s.score))
    return out
