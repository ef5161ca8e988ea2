"""Opposite situations: two texts that differ by an opposite or by a negation are not the same.

Why (issue 46): a sentence embedding puts opposites side by side. With all-MiniLM-L6-v2 "the
living room is too warm" is 0.80 similar to "the user says the living room is too cold", so a
heuristic for the cold room fired "raise the thermostat" for the warm one; "Disable two-factor
authentication for the admin account" was the same task as "Enable …" at 0.97 and was merged
into it. Similarity cannot tell them apart; the words can.

The rule, shared by the executive's scope (``heuristics.scope``) and admission's same-task rule:

- each *axis* has two poles of surface forms (cold: cold, chilly, freezing…; warm: warm, hot,
  stuffy…). A text is on a pole when it uses a form of that pole and none of the other;
- the two texts are *flipped* on an axis when one is on one pole and the other on the other;
- a text is *negated* when it says not, n't, never, no, nothing…; the two differ in negation
  when one is negated and the other is not;
- they are opposed when they are flipped on an odd number of axes, or differ in negation, except
  that a negated "… enough" cancels one flip: "isn't warm enough" and "too cold" are the same
  situation, but "isn't cold any more" is not "too warm", and "I'm not sure I locked the door" is
  not "unlock the door" (the labelled set's dev half: a negation beside an opposite said "not
  this", rarely "the other one");
- a question about a situation is not the situation: "what is two-factor authentication?" is
  not "turn off two-factor authentication" (a request phrased as a question, "can you …?", is
  not a question here).

Words that are also ordinary prepositions or particles (on, off, up, down) count only after a
verb they complete ("turn the heating on", "the server went down"), not in "the meeting on
Monday". A false "opposed" costs a match; a missed one fires the opposite action: the lists err
on the side of the forms that are unambiguous.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["AXES", "Contrast", "asks", "contrast", "negated", "poles"]


@dataclass(frozen=True, slots=True)
class Axis:
    name: str
    first: frozenset[str]
    second: frozenset[str]


def _axis(name: str, first: str, second: str) -> Axis:
    return Axis(name, frozenset(first.split()), frozenset(second.split()))


AXES: tuple[Axis, ...] = (
    _axis(
        "cold/warm",
        "cold colder coldest chilly chilled freezing frozen frosty icy nippy brr cooler",
        "warm warmer warmest hot hotter hottest boiling stuffy sweltering toasty baking roasting overheating",
    ),
    _axis("open/closed", "open opened opening opens ajar", "closed close closes closing shut shuts shutting"),
    _axis("locked/unlocked", "locked lock locks locking", "unlocked unlock unlocks unlocking"),
    _axis(
        "arrive/leave",
        "arrive arrives arrived arriving returned returning home_now",
        "leave leaves leaving left depart departs departed departing heading_out going_out head_out gone_out",
    ),
    _axis(
        "enable/disable",
        "enable enables enabled enabling activate activates activated activating",
        "disable disables disabled disabling deactivate deactivates deactivated deactivating",
    ),
    _axis(
        "start/stop",
        "start starts started starting begin begins began begun beginning resume resumes resumed resuming "
        "underway ongoing in_progress",
        "stop stops stopped stopping end ends ended ending finish finishes finished finishing halt halted "
        "pause pauses paused pausing",
    ),
    _axis(
        "increase/decrease",
        "increase increases increased increasing raise raises raised raising louder upgrade upgrades upgraded "
        "upgrading boost boosted",
        "decrease decreases decreased decreasing lower lowers lowered lowering quieter downgrade downgrades "
        "downgraded downgrading reduce reduces reduced reducing",
    ),
    _axis("full/empty", "full filled filling overflowing", "empty emptied emptying freed"),
    _axis("dark/bright", "dark darker darkness dusk", "bright brighter daylight sunny dawn"),
    _axis(
        "succeeded/failed",
        "succeeded succeeds success successful successfully passed completed",
        "failed fails failing failure failures",
    ),
    _axis(
        "accepted/declined",
        "accepted accept accepts approved approve approves confirmed confirm confirms",
        "declined decline declines rejected reject rejects denied deny denies cancelled canceled cancel "
        "cancels cancelling canceling",
    ),
    _axis(
        "add/remove",
        "add adds added adding install installs installed installing subscribe subscribed subscribes",
        "remove removes removed removing delete deletes deleted deleting uninstall uninstalled unsubscribe "
        "unsubscribed unsubscribes",
    ),
    _axis(
        "connected/disconnected",
        "connected connect connects connecting online",
        "disconnected disconnect disconnects disconnecting offline",
    ),
    _axis(
        "down/recovered",
        "is_down went_down goes_down gone_down outage crashed crash unreachable unavailable",
        "recovered recovers restored resolved is_up back_up back_online healthy",
    ),
    _axis("on/off", "is_on turned_on switched_on left_on", "is_off turned_off switched_off left_off"),
    _axis("up/down", "turned_up turn_up up_", "turned_down turn_down down_"),
    _axis("high/low", "high higher spike spiking spiked surge surging", "low lower_level dropped drop"),
)
"""Each axis's two poles. Forms joined by ``_`` are phrases made by ``_phrases`` below."""

_NEGATIONS = frozenset({"not", "never", "no", "nothing", "none", "nobody", "neither", "nor", "without", "cannot"})

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:turn|turned|turning|turns|switch|switched|switching)\b(?:\s+\w+){0,3}?\s+on\b"), "turned_on"),
    (re.compile(r"\b(?:turn|turned|turning|turns|switch|switched|switching)\b(?:\s+\w+){0,3}?\s+off\b"), "turned_off"),
    (re.compile(r"\b(?:is|are|was|were|been|still|stays|stayed|left)\s+on\b(?!\s+(?:the|a|an|my|your|our|monday|tuesday|wednesday|thursday|friday|saturday|sunday|time|top|fire)\b)"), "is_on"),  # noqa: E501
    (re.compile(r"\b(?:is|are|was|were|been|still|stays|stayed|left)\s+off\b"), "is_off"),
    (re.compile(r"\b(?:turn|turned|turning|turns)\b(?:\s+\w+){0,3}?\s+up\b"), "turned_up"),
    (re.compile(r"\b(?:turn|turned|turning|turns)\b(?:\s+\w+){0,3}?\s+down\b"), "turned_down"),
    (re.compile(r"\b(?:is|are|was|were|been|still)\s+down\b"), "is_down"),
    (re.compile(r"\b(?:went|go|goes|going|gone)\s+down\b"), "went_down"),
    (re.compile(r"\b(?:is|are|was|were)\s+(?:back\s+)?up\b(?!\s+(?:to|for|at)\b)"), "is_up"),
    (re.compile(r"\bback\s+up\b(?!\s+(?:the|my|your|our|a|an|files?|data|database)\b)"), "back_up"),
    (re.compile(r"\bback\s+online\b"), "back_online"),
    (re.compile(r"\b(?:heading|head|going|gone)\s+out\b"), "heading_out"),
    (re.compile(r"\bin\s+progress\b"), "in_progress"),
    (re.compile(r"\b(?:i'm|im|i am|we're|we are|got|came|coming)\s+(?:home|back)\b"), "home_now"),
)


_QUESTION = re.compile(
    r"^\s*(?:what|what's|whats|how|why|when|where|who|which|whose|is|are|was|were|does|do|did|has|have)\b"
)
_REQUEST = re.compile(r"\b(?:can|could|would|will)\s+(?:you|u)\b|\bplease\b|\bpls\b")


@lru_cache(maxsize=65_536)
def asks(text: str) -> bool:
    """Is ``text`` a question about something (not a request phrased as one)?"""
    lowered = text.lower().replace("\u2019", "'").strip()
    return lowered.endswith("?") and bool(_QUESTION.match(lowered)) and not _REQUEST.search(lowered)


@lru_cache(maxsize=65_536)
def _words(text: str) -> frozenset[str]:
    lowered = text.lower().replace("\u2019", "'")
    words = {word.removesuffix("'s") for word in _WORD.findall(lowered)}
    for pattern, phrase in _PHRASES:
        if pattern.search(lowered):
            words.add(phrase)
    return frozenset(words)


def negated(text: str) -> bool:
    """Does ``text`` say not (not, n't, never, no, nothing, without…)?"""
    return any(word in _NEGATIONS or word.endswith("n't") for word in _words(text))


def poles(text: str) -> dict[str, int]:
    """The axes ``text`` takes a side on: 1 (the first pole) or 2 (the second); an axis whose two
    poles it both uses is left out ("it was cold, now it's warm" takes no side)."""
    words = _words(text)
    sides: dict[str, int] = {}
    for axis in AXES:
        first, second = bool(words & axis.first), bool(words & axis.second)
        if first != second:
            sides[axis.name] = 1 if first else 2
    return sides


@dataclass(frozen=True, slots=True)
class Contrast:
    """Why two texts are not the same situation: the axes they are flipped on, whether one of them
    is negated and the other not, and whether one asks about it."""

    axes: tuple[str, ...]
    negation: bool
    question: bool = False

    def describe(self) -> str:
        parts = list(self.axes) + (["one is negated"] if self.negation else [])
        parts += ["one asks about it"] if self.question else []
        return "opposite: " + ", ".join(parts)


def _enough(text: str) -> bool:
    return "enough" in _words(text)


def contrast(a: str, b: str) -> Contrast | None:
    """The opposition between ``a`` and ``b``, or None when they may be the same situation."""
    side_a, side_b = poles(a), poles(b)
    flipped = tuple(name for name, side in side_a.items() if side_b.get(name, side) != side)
    negation = negated(a) != negated(b)
    question = asks(a) != asks(b)
    if negation and flipped and _enough(a if negated(a) else b):
        # "isn't warm enough" is "too cold": the negation undoes one flip
        negation, flipped = False, flipped[1:]
    if not flipped and not negation and not question:
        return None
    if len(flipped) % 2 == 0 and flipped and not negation and not question:
        return None  # flipped twice: the same situation said the other way round
    return Contrast(flipped, negation, question)
