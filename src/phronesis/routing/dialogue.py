"""What a session is waiting for, and how the next turn answers it (dialogue state).

Seed 002 decides one query at a time; its CLARIFY asks a question and USE_TOOL waits on
"parameters available". A conversation needs the question remembered: after "To book that I
need when you would like to meet", "Thursday at 2pm works" is an answer, not a new request
to route from scratch (which escalates it as ``no_suitable_tool``). A session therefore keeps
one ``Pending``: a tool call waiting for its arguments, a tool call waiting for a yes or a no,
or a question the user was asked. The next turn resolves it first:

- a refusal ("no", "cancel that", "never mind") drops it: REASON_ONLY, nothing is done;
- a yes to a confirmation makes the call, with the arguments as confirmed;
- an answer that gives arguments fills them: the call is made when they are complete (after a
  yes when the tool must be confirmed), else the rest is asked for;
- anything else is a new request: it is routed as usual and the pending call is dropped.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field

from phronesis.schema import Schema

__all__ = [
    "Pending",
    "PendingKind",
    "Reply",
    "acknowledges",
    "action_verbs",
    "asks_to_do",
    "opening_verb",
    "plain_yes",
    "reply_to",
]

PendingKind = Literal["arguments", "confirm", "question"]
Reply = Literal["yes", "no", "other"]


class Pending(Schema):
    """The one thing a session waits for (kept on the session and on the turn's decision record)."""

    kind: PendingKind
    """``arguments``: a tool call waiting for missing arguments; ``confirm``: a complete tool call
    waiting for a yes; ``question``: a clarifying question with no tool behind it."""
    tool: str | None = None
    """The tool the call is for (``arguments`` and ``confirm``)."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """The arguments known so far (validated against the tool's schema)."""
    partial: dict[str, dict[str, str]] = Field(default_factory=dict)
    """Half-given date-times: ``{"time": {"date": "2026-03-05"}}`` after "Thursday works"."""
    missing: list[str] = Field(default_factory=list)
    """The arguments asked for."""
    question: str | None = None
    """What the user was asked."""
    decision_id: str | None = None
    """The decision that asked."""
    carried: bool = False
    """Kept over a question on the side: the last answer was to that question, so "ok, great"
    acknowledges it, and only a plain yes or the arguments asked for go back to the call."""


_YES = re.compile(
    r"^(?:yes|yeah|yep|yup|sure|ok|okay|confirm(?:ed)?|correct|right|absolutely|definitely|please do|do it"
    r"|go ahead|go for it|sounds good|that'?s right|that works|perfect|great|please)\b",
    re.IGNORECASE,
)
_FILLER = re.compile(r"^(?:(?:ok|okay|hmm+|well|alright|ah|oh|um+|uh)\b[,.!]*\s*)+", re.IGNORECASE)
_PLAIN_YES = re.compile(
    r"^(?:yes|yeah|yep|yup|sure|confirm(?:ed)?|absolutely|definitely|please do|do it|go ahead|go for it)\b", re.I
)


def plain_yes(text: str) -> bool:
    """A yes that can only be an answer to the call ("yes", "go ahead"), not the "ok, great" that
    acknowledges an answer just given."""
    return reply_to(text) == "yes" and _PLAIN_YES.match(text.strip()) is not None


_NO = re.compile(
    r"^(?:no(?! idea| problem| worries| doubt)|nope|nah|nvm|not now|not yet|cancel(?: that| it)?|never ?mind"
    r"|forget (?:it|that|about it)|don'?t"
    r"|do not|stop|skip (?:it|that)|not needed|no thanks?|no,? thank you|actually,? (?:no|never ?mind|cancel))\b",
    re.IGNORECASE,
)
_SHORT = 8
"""A reply longer than this many words is a request of its own, not a yes or a no."""


def reply_to(text: str) -> Reply:
    """Whether a short reply agrees, refuses, or is something else. "No, cancel it" refuses;
    "yes please, book it" agrees; "no idea what the Pro plan costs" is not a refusal: only
    short replies are read this way."""
    words = text.strip().split()
    if not words or len(words) > _SHORT:
        return "other"
    cleaned = text.strip().lstrip("-–— ").strip()
    if _NO.match(cleaned) or _NO.match(_FILLER.sub("", cleaned)):  # "ok, not now then" refuses
        return "no"
    if _YES.match(cleaned):
        return "yes"
    return "other"


_ACK_WORDS = frozenset(
    [
        "thanks",
        "thank",
        "you",
        "thx",
        "ty",
        "tysm",
        "tks",
        "cheers",
        "danke",
        "merci",
        "gracias",
        "great",
        "perfect",
        "awesome",
        "cool",
        "ok",
        "okay",
        "k",
        "kk",
        "got",
        "it",
        "nice",
        "sounds",
        "good",
        "fine",
        "alright",
        "all",
        "right",
        "noted",
        "understood",
        "makes",
        "sense",
        "brilliant",
        "wonderful",
        "lovely",
        "super",
        "excellent",
        "appreciate",
        "appreciated",
        "it",
        "that",
        "much",
        "a",
        "lot",
        "so",
        "very",
        "helpful",
        "helps",
        "clear",
        "now",
        "good",
        "to",
        "know",
        "fair",
        "enough",
        "sounds",
        "like",
        "ta",
        "ah",
        "oh",
    ]
)


def acknowledges(text: str) -> bool:
    """A reply made only of thanks and acknowledgements ("thx", "ok cool thx", "danke!"): seed 002's
    REASON_ONLY ("Thanks, that helps!"), decided without the router, which reads "thx" as out of
    scope (three such turns would ask the user what they wanted)."""
    words = re.findall(r"[a-z]+", text.lower())
    return 0 < len(words) <= 8 and all(w in _ACK_WORDS for w in words)


_ACTION_VERBS = (
    r"add|book|buy|call|cancel|change|check|correct|delete|downgrade|edit|email|e-mail|fix|forward|log|mail|mark"
    r"|move|note|order|put|record|register|remind|remove|rename|reschedule|schedule|send|set|share|sign|subscribe"
    r"|switch|track|unsubscribe|update|upgrade|arrange|look up|save|store|write down|text|ping"
)
_TO_DO = re.compile(
    rf"^(?:(?:ok|okay|great|thanks|yes|yeah|sure|and|also|then|so),?\s+)*(?:please\s+|pls\s+|kindly\s+)?"
    rf"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    rf"|(?:i|we)\s+(?:need|want|would like|'d like)\s+(?:you\s+)?to\s+"
    rf"|(?:i|we)\s+(?:need|want|would like|'d like)\s+)?(?P<verb>{_ACTION_VERBS})\b",
    re.IGNORECASE,
)


def asks_to_do(text: str) -> bool:
    """The message asks for something to be done, not for information: it opens with an action
    ("Send me the security whitepaper", "Please record that I'm the decision maker", "Can you
    update our address", "I need to cancel our demo"). A tool does such things; the knowledge base
    answers questions."""
    return _TO_DO.search(text.strip()) is not None


def opening_verb(text: str) -> str | None:
    """The action a request opens with ("Send me a link to book a demo" → "send"; "Can you update our
    address" → "update"), one word; None when it does not open with one."""
    found = _TO_DO.search(text.strip())
    return None if found is None else found.group("verb").lower().split()[0]


_VERB_WORDS = frozenset(_ACTION_VERBS.replace("look up", "look").replace("write down", "write").split("|"))


def action_verbs(text: str) -> set[str]:
    """The action verbs a message uses ("send", "update", "book"), in any position."""
    return {w for w in re.findall(r"[a-z]+(?:-[a-z]+)?", text.lower()) if w in _VERB_WORDS}
