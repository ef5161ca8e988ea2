"""What a user's reply to proactive messages asks for (seed 004 §5).

- ``opt_out``: no more proactive messages at all ("unsubscribe", "stop", "stop messaging me",
  "don't text me anymore"), pending send or not;
- ``opt_out_topic``: no more messages about what the reply names ("unsubscribe from weather",
  "no more weather please", "stop the bill reminders"): the named words become stopped topics
  (``proactive.topics``), and nothing else is touched;
- ``opt_out_category``: no more messages *like this one* ("please stop sending me these"): the
  answered message's signal types are stopped (its category when it had none);
- ``mute`` / ``mute_topic``: the same for a while ("no messages today", "mute weather for a week");
- ``opt_in``: back on, for what is named or for everything ("don't stop reminding me about
  deadlines", "start sending me weather again", "opt me back in");
- ``negative``: pushback that is not a request to stop ("not helpful", "annoying", "spam");
- ``reply``: anything else, including a deferral ("not now, thanks! I'll do it tonight").

Rules, not a model: a reply decides whether a person keeps getting messages, and every phrase
is a line of the labelled set (``benchmarks/data/proactive_replies.jsonl``). Negated pushback
("don't stop", "not annoying at all") is not pushback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from phronesis.proactive.topics import known_topic, singular

__all__ = ["Reading", "ReplyIntent", "read_reply"]

ReplyIntent = Literal[
    "opt_out", "opt_out_topic", "opt_out_category", "mute", "mute_topic", "opt_in", "negative", "reply"
]
STOPPING: frozenset[str] = frozenset({"opt_out", "opt_out_topic", "opt_out_category", "mute", "mute_topic"})
"""Intents that ask for fewer messages: the answered send is labelled negative."""


@dataclass(frozen=True, slots=True)
class Reading:
    intent: ReplyIntent
    topics: tuple[str, ...] = ()
    """The words the reply named (``weather``, ``bill``), singular, in order."""
    hours: float | None = None
    """How long a mute lasts, when the reply said (or implied) one."""


_SEND = (
    r"(?:send(?:ing)?|text(?:ing)?|messag(?:e|ing)|remind(?:ing)?|ping(?:ing)?|notify(?:ing)?|bug(?:ging)?"
    r"|alert(?:ing)?)"
)
_ABOUT = r"(?:\s+(?:about|of|with|on|for|regarding))?"
_THESE = re.compile(r"\b(these|this|those|that|them|such|it)\b")
_MESSAGE_NOUN = re.compile(
    r"\b(reminders?|alerts?|messages?|texts?|notifications?|updates?|pings?|nudges?|warnings?|briefings?|emails?)\b"
)

_KEEP = re.compile(
    rf"\b(?:(?:don'?t|do not|never|please don'?t)\s+stop(?:\s+{_SEND})?|keep\s+{_SEND}|"
    rf"(?:start|resume|restart|continue)\s+{_SEND}|(?<!un)subscribe|opt(?:\s+me)?(?:\s+back)?\s+in(?:to)?|"
    r"unmute|un-mute|re-?enable|resume|bring\s+back|turn\s+back\s+on|switch\s+back\s+on)"
    rf"(?:\s+me)?{_ABOUT}(?:\s+to)?",
)
_BACK_ON = re.compile(r"\b(?:turn|switch|put)\s+(?P<obj>[\w\s'-]{1,40}?)\s+back\s+on\b")
_WANT_BACK = re.compile(r"\b(?:i\s+)?(?:want|'d like|would like|miss)\s+(?P<obj>[\w\s'-]{1,40}?)\s+(?:back|again)\b")
_SEND_AGAIN = re.compile(rf"\b{_SEND}\s+me(?P<obj>[\w\s'-]{{0,40}}?)\s+again\b")
_MISS = re.compile(r"\bi\s+miss\s+(?P<obj>[\w\s'-]{1,40})")

_STOP_ALONE = re.compile(r"^\s*(please\s+)?(stop|cancel|end|quit|unsubscribe)(\s+please)?\W*$")
_STOP = re.compile(
    rf"\b(?:unsubscribe(?:\s+me)?(?:\s+from)?|opt(?:\s+me)?[ -]?out(?:\s+of)?|stop\s+{_SEND}(?:\s+me)?{_ABOUT}|"
    rf"stop\s+(?:all|any|the|those|these|your|my)\b|(?:don'?t|do not|never)\s+{_SEND}(?:\s+me)?{_ABOUT}|"
    r"(?<!have )(?<!had )(?<!got )no\s+more(?:\s+of)?|"
    r"\bno(?=(?:\s+[a-z]+){1,2}\s+(?:for|today|tonight|this)\b)|"
    r"(?:i\s+)?(?:don'?t|do not)\s+(?:want|need)(?:\s+(?:any(?:\s+more)?|to\s+(?:get|receive|hear\s+about|see)))?|"
    r"(?:turn|switch|shut)\s+off|mute|pause|silence|enough\s+(?:with|of)|cancel|"
    r"(?:i'?m|i\s+am)\s+not\s+interested\s+in|leave\s+me\s+alone\s+for\s+good|remove\s+me(?:\s+from)?)"
)
_GENERAL = re.compile(
    r"\b(unsubscribe|opt[ -]?out|stop\s+\w+ing|don'?t\s+\w+\s+me|do not\s+\w+\s+me|for good|remove me)\b"
)
"""A stop phrase that asks for nothing more when no topic follows ("stop messaging me")."""
_NEEDS_NOUN = re.compile(
    r"^(?:stop\s+(?:all|any|the|your|my)|cancel|pause|(?:i\s+)?(?:don'?t|do not)\s+(?:want|need))$"
)
"""Stop words too common to mean "stop messages" unless a message noun follows ("cancel the
birthday reminders", not "cancel my 3pm")."""

_NEGATIVE = re.compile(
    r"\b(stop it|leave me alone|(not|isn'?t|wasn'?t) (helpful|useful|relevant)|useless|annoying|irritating|"
    r"go away|shut up|too many (messages|texts|reminders|notifications)|spam(my)?|stop bothering me)\b"
)
_NEGATED = re.compile(r"\b(not|never|isn'?t|wasn'?t|no)\s+(at all\s+)?(annoying|spam(my)?|irritating|useless)\b")

_CLAUSE_END = re.compile(r"[.,!?;:()]|\s(?:but|because|since|and\s+(?:i|you|it|that)|unless|so)\s|$")
_FILLER = frozenset(
    {
        "me", "my", "the", "a", "an", "any", "all", "more", "of", "about", "from", "with", "to", "on", "for", "your",
        "you", "those", "these", "this", "that", "them", "such", "it", "kind", "type", "sort", "stuff", "thing",
        "things", "please", "thanks", "thank", "again", "anymore", "now", "ok", "okay", "just", "really", "so",
        "much", "many", "some", "every", "each", "other", "lot", "lots", "too", "very", "stupid", "annoying",
        "constant", "daily", "endless", "there", "here", "get", "receive", "hear", "see", "send",
        "sending", "want", "need", "anything", "everything", "else", "one", "ones", "back", "in", "out", "up", "off",
        "anyway", "today", "tonight", "tomorrow", "week", "weeks", "day", "days", "hour", "hours", "month", "months",
        "while", "weekend", "rest", "good", "a1", "i", "i'm", "im", "mine", "our", "us", "we", "it's", "its", "is",
        "are", "be", "do", "don't",
    }
)
_GENERIC = frozenset(
    ["reminder", "alert", "message", "text", "notification", "update", "ping", "nudge", "warning", "proactive"]
)
"""Words that name messages in general: "no more messages" names no topic."""

_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}
_UNIT_HOURS = {"hour": 1, "day": 24, "week": 24 * 7, "month": 24 * 30}
_FOR = re.compile(
    r"\bfor\s+(?P<n>\d{1,3}|a|an|one|two|three|four|five|six|seven|ten)\s+(?P<unit>hour|day|week|month)s?\b"
)
_SPAN = {
    r"\b(today|tonight|for now|for the day|for the rest of the day)\b": 24.0,
    r"\b(this week|for a while|for the week)\b": 24.0 * 7,
    r"\b(this weekend|for the weekend)\b": 24.0 * 3,
}


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("’", "'").replace("‘", "'").casefold()).strip()


def _duration(text: str) -> float | None:
    """Hours a reply asks for ("for a week" → 168, "today" → 24); None when it names no span."""
    if m := _FOR.search(text):
        n = m.group("n")
        return float(int(n) if n.isdigit() else _NUMBERS[n]) * _UNIT_HOURS[m.group("unit")]
    for pattern, hours in _SPAN.items():
        if re.search(pattern, text):
            return hours
    return None


def _without_span(text: str) -> str:
    """The text without its duration ("this weekend" is not "this" message)."""
    text = _FOR.sub(" ", text)
    for pattern in _SPAN:
        text = re.sub(pattern, " ", text)
    return text


def _clause(text: str) -> str:
    """The words up to the end of the clause: the object of a stop or start phrase."""
    end = _CLAUSE_END.search(text)
    return text[: end.start()] if end is not None else text


def _topics(text: str) -> tuple[str, ...]:
    """The topic words of an object phrase: "the bill reminders" → ``bill``; "these" → none."""
    words = re.findall(r"[a-z][a-z'-]*", _without_span(text))
    out: list[str] = []
    for word in words:
        if word in _FILLER or len(word) < 3:
            continue
        one = singular(word)
        if one in _GENERIC or word in _GENERIC or one in _FILLER or one in out:
            continue
        out.append(one)
    return tuple(out)


def _opt_in(text: str) -> Reading | None:
    for pattern in (_BACK_ON, _WANT_BACK, _SEND_AGAIN, _MISS):
        if (m := pattern.search(text)) is not None:
            obj = _clause(m.group("obj"))
            vague = pattern in (_WANT_BACK, _MISS) and not _MESSAGE_NOUN.search(obj)
            if vague and not any(known_topic(word) for word in _topics(obj)):
                continue  # "I want to finish the report today": not about messages
            return Reading("opt_in", _topics(obj))
    if (m := _KEEP.search(text)) is not None:
        return Reading("opt_in", _topics(_clause(text[m.end() :])))
    return None


def _stop(text: str) -> Reading | None:
    for m in _STOP.finditer(text):
        rest = _without_span(_clause(text[m.end() :]))
        trigger = m.group(0)
        if trigger.startswith("remove me"):
            return Reading("opt_out")  # "remove me from this": from the service
        named = _MESSAGE_NOUN.search(rest) or _THESE.search(trigger) or _THESE.match(rest.strip())
        if _NEEDS_NOUN.match(trigger) and not named:
            continue
        if trigger.startswith("no") and not named and not any(known_topic(w) for w in _topics(rest)):
            continue  # "no more excuses": not about our messages
        hours = _duration(text)
        if trigger in ("mute", "pause", "silence") and hours is None:
            hours = 24.0 * 7  # a mute with no span: a week
        topics = _topics(rest)
        if topics:
            return Reading("mute_topic" if hours else "opt_out_topic", topics, hours)
        if _THESE.search(rest) or _THESE.search(trigger):
            return Reading("opt_out_category")
        if hours is not None and (_MESSAGE_NOUN.search(rest) or trigger.startswith(("mute", "pause", "silence", "no"))):
            return Reading("mute", (), hours)
        if _MESSAGE_NOUN.search(rest) or _GENERAL.search(trigger) or trigger.startswith("leave"):
            return Reading("opt_out")
    return None


def read_reply(text: str) -> Reading:
    """What the reply asks for, and about what (see the module's list)."""
    t = _normalise(text)
    if not t:
        return Reading("reply")
    if (opted_in := _opt_in(t)) is not None:
        return opted_in
    if _STOP_ALONE.match(t):
        return Reading("opt_out")
    if (stop := _stop(t)) is not None:
        return stop
    if _NEGATIVE.search(_NEGATED.sub(" ", t)):
        return Reading("negative")
    return Reading("reply")
