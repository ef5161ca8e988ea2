"""Opposite situations: two texts that differ by an opposite or by a negation are not the same.

Why: a sentence embedding puts opposites side by side. With all-MiniLM-L6-v2 "the living room
is too warm" is 0.80 similar to "the user says the living room is too cold", so a heuristic for
the cold room would fire "raise the thermostat" for the warm one; "Disable two-factor
authentication for the admin account" is 0.97 similar to "Enable …" and would be merged into it
as the same task. Similarity cannot tell them apart; the words can.

The rule, shared by the executive's scope (``heuristics.scope``) and admission's same-task rule:

- each *axis* has two poles of surface forms (cold: cold, chilly, freezing…; warm: warm, hot,
  stuffy…). A text is on a pole when it uses a form of that pole and none of the other;
- the two texts are *flipped* on an axis when one is on one pole and the other on the other;
- a text is *negated* when it says not, n't, never, no, nothing…; the two differ in negation
  when one is negated and the other is not;
- a negation counts by what it applies to (``_negation_flips``): denying what the other text says
  is a flip ("the door is not locked" / "the door is locked"), denying the other pole undoes one
  ("isn't warm enough" / "too cold"), denying something the other does not mention is nothing ("I
  forgot my password and cannot log in" / "I forgot my password"), and a situation said to have
  ended ("isn't cold any more") denies both poles;
- they are opposed when the flips add up to an odd number;
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


_FILLER = frozenset(
    {"be", "been", "a", "an", "the", "very", "so", "too", "any", "really", "quite", "at", "all", "yet", "anywhere"}
    | {"near", "nearly", "even", "remotely", "that", "just"}
)
_ENDED = re.compile(r"\b(?:any\s*more|no\s+longer)\b")
_TOKENS = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@lru_cache(maxsize=65_536)
def _negated_words(text: str) -> frozenset[str]:
    """What ``text``'s negations apply to: the first two words after each (not, n't, never, no…),
    fillers skipped ("is not very warm" → warm)."""
    tokens = [t.removesuffix("'s") for t in _TOKENS.findall(text.lower().replace("\u2019", "'"))]
    scoped: set[str] = set()
    for i, token in enumerate(tokens):
        if token in _NEGATIONS or token.endswith("n't"):
            following = [t for t in tokens[i + 1 : i + 7] if t not in _FILLER]
            scoped.update(following[:2])
    return frozenset(scoped)


def _stem(word: str) -> str:
    """A word without its commonest endings, so that "go" denies "going" and "lock" "locked"."""
    for ending in ("ing", "ed", "es", "s"):
        if len(word) > len(ending) + 2 and word.endswith(ending):
            return word[: -len(ending)]
    return word


def _negation_flips(a: str, b: str, flipped: list[str]) -> int:
    """How the negation one text has and the other not bears on what they say: +1 where it denies
    what the other says ("the door is not locked" / "the door is locked"), and the flips it undoes
    where it denies the other pole of an axis they are flipped on ("isn't warm enough" / "too cold",
    "not locked" / "unlocked"); 0 where it is about something the other does not mention ("I forgot
    my password and cannot log in" / "I forgot my password"). A situation said to have ended ("isn't
    cold any more") is never the other pole: it denies it."""
    if negated(a) == negated(b):
        return 0
    text, other = (a, b) if negated(a) else (b, a)
    scoped, said = _negated_words(text), _words(other)
    ended = bool(_ENDED.search(text.lower()))
    change = 0
    for axis in AXES:
        if axis.name in flipped and scoped & (axis.first | axis.second) and not ended:
            change -= 1
    if change == 0 and any(axis.name in flipped for axis in AXES if scoped & (axis.first | axis.second)):
        return 0  # an ended situation: the flip stands, the negation adds nothing
    if change == 0 and {_stem(w) for w in scoped} & {_stem(w) for w in said}:
        change = 1
    return change


def contrast(a: str, b: str) -> Contrast | None:
    """The opposition between ``a`` and ``b``, or None when they may be the same situation."""
    side_a, side_b = poles(a), poles(b)
    flipped = [name for name, side in side_a.items() if side_b.get(name, side) != side]
    change = _negation_flips(a, b, flipped)
    question = asks(a) != asks(b)
    flips = len(flipped) + change
    if flips % 2 == 0 and not question:
        return None  # the same situation (flipped twice, or a negation undoing a flip)
    return Contrast(tuple(flipped), change > 0, question)
