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
    day_end: bool = False
    """The mute lasts until the end of the user's day ("no messages today", "quiet tonight")."""


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
    rf"\b(?:(?:don'?t|do not|never|please don'?t)\s+stop(?:\s+{_SEND})?|keep\s+{_SEND}|continue\s+{_SEND})"
    rf"(?:\s+me)?{_ABOUT}(?:\s+to)?",
)
"""Asking for more of something: an opt-in of what it names ("don't stop reminding me about
deadlines"); naming nothing ("don't stop, these help") it is a plain reply, never an opt-in of
everything (which would clear the user's earlier opt-outs)."""
_START = re.compile(
    rf"\b(?:(?:start|resume|restart)\s+{_SEND}|(?<!un)subscribe|opt(?:\s+me)?(?:\s+back)?\s+in(?:to)?|"
    r"unmute|un-mute|re-?enable|resume|bring\s+back|turn\s+back\s+on|switch\s+back\s+on)"
    rf"(?:\s+me)?{_ABOUT}(?:\s+to)?",
)
"""Asking to start again: of what it names, or of everything ("opt me back in")."""
_COMING = re.compile(r"\bkeep\s+(?P<obj>[\w\s'-]{1,40}?)\s+coming\b")
_DO_WANT = re.compile(r"\bi\s+(?:do\s+|still\s+)+want\s+(?P<obj>[\w\s'-]{1,40})")
_BACK_ON = re.compile(r"\b(?:turn|switch|put)\s+(?P<obj>[\w\s'-]{1,40}?)\s+back\s+on\b")
_WANT_BACK = re.compile(r"\b(?:i\s+)?(?:want|'d like|would like|miss)\s+(?P<obj>[\w\s'-]{1,40}?)\s+(?:back|again)\b")
_SEND_AGAIN = re.compile(rf"\b{_SEND}\s+me(?P<obj>[\w\s'-]{{0,40}}?)\s+again\b")
_MISS = re.compile(r"\bi\s+miss\s+(?P<obj>[\w\s'-]{1,40})")
_NOT_BEFORE = re.compile(
    r"(?:don'?t|do not|never|not|can'?t|cannot|won'?t)\s+(?:want\s+to\s+|wanna\s+)?(?:please\s+)?$"
)
"""A stop phrase right after a negation asks for nothing ("I don't want to unsubscribe")."""
_EXCEPT = re.compile(r"\b(except|other than|apart from|but not|besides)\b")
"""A stop with an exception ("stop all notifications except deadlines") is not acted on: stopping
everything would stop what the user wants kept; it is read as a plain reply for the agent."""
_TOPIC_STOP = re.compile(r"^(?P<obj>[a-z][\w\s'-]{1,40}?)\s*[:,-]+\s*(?:please\s+)?stop\b")
"""A topic, then the stop: "weather: stop"."""
_STOP_ALONE = re.compile(r"^\s*(please\s+)?(stop|cancel|end|quit|unsubscribe)(\s+please)?\W*$")
_STOP = re.compile(
    rf"\b(?:unsubscribe(?:\s+me)?(?:\s+from)?|opt(?:\s+me)?[ -]?out(?:\s+of)?|stop\s+{_SEND}(?:\s+me)?{_ABOUT}|"
    r"(?:stop|quit)\s+(?:telling|bugging|nagging|pestering)\s+me(?:\s+about)?|quit\s+{_SEND}(?:\s+me)?|"
    rf"stop\s+(?:all|any|the|those|these|your|my)\b|stop\s+with(?:\s+the)?|"
    rf"(?:don'?t|do not|never|can\s+you\s+not)\s+{_SEND}(?:\s+me)?{_ABOUT}|"
    r"(?<!have )(?<!had )(?<!got )no\s+more(?:\s+of)?|"
    r"\bno(?=(?:\s+[a-z]+){1,2}\s+(?:(?:for|today|tonight|this|until)\b|~span~))|"
    r"(?:i\s+)?(?:don'?t|do not)\s+(?:want|need)(?:\s+(?:any(?:\s+more)?|to\s+(?:get|receive|hear\s+about|see)))?|"
    r"(?:i'?d|i\s+would)\s+rather\s+not\s+(?:get|receive|hear\s+about|see)|"
    r"(?:turn|switch|shut)\s+off|mute|pause|silence|snooze|hold|quiet|enough\s+(?:with|of)|cancel|"
    r"(?:i'?m|i\s+am)\s+not\s+interested\s+in|leave\s+me\s+alone\s+for\s+good|remove\s+me(?:\s+from)?|"
    r"stop(?=\s+[a-z]))"
)
_GENERAL = re.compile(
    r"\b(unsubscribe|opt[ -]?out|stop\s+\w+ing|don'?t\s+\w+\s+me|do not\s+\w+\s+me|for good|remove me)\b"
)
"""A stop phrase that asks for nothing more when no topic follows ("stop messaging me")."""
_NEEDS_NOUN = re.compile(
    r"^(?:stop\s+(?:all|any|the|your|my)|cancel|pause|hold|(?:i\s+)?(?:don'?t|do not)\s+(?:want|need))$"
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
        "sending", "want", "need", "anything", "everything", "else", "already", "one", "ones", "back", "in", "out",
        "up", "off", "span",
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
    r"\bfor\s+(?:the\s+)?(?:next\s+)?(?P<n>\d{1,3}|a|an|one|two|three|four|five|six|seven|ten)\s+"
    r"(?P<unit>hour|day|week|month)s?\b"
)
_DAY_END = re.compile(r"\b(today|tonight|for the day|for the rest of the day)\b")
_SPAN = {
    _DAY_END.pattern: 24.0,
    r"\b(for now|until tomorrow)\b": 24.0,
    r"\b(until next week)\b": 24.0 * 7,
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
    """The text with its duration as one mark, ``~span~`` ("this weekend" is not "this" message,
    "for the next two hours" names no topic)."""
    text = _FOR.sub(" ~span~ ", text)
    for pattern in _SPAN:
        text = re.sub(pattern, " ~span~ ", text)
    return text


def _clause(text: str) -> str:
    """The words up to the end of the clause: the object of a stop or start phrase."""
    end = _CLAUSE_END.search(text)
    return text[: end.start()] if end is not None else text


def _topics(text: str) -> tuple[str, ...]:
    """The topic words of an object phrase: "the bill reminders" → ``bill``; "these" → none."""
    words = re.findall(r"(?<!~)\b[a-z][a-z'-]*", _without_span(text))
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
    for pattern in (_BACK_ON, _WANT_BACK, _SEND_AGAIN, _MISS, _COMING, _DO_WANT):
        if (m := pattern.search(text)) is not None:
            obj = _clause(m.group("obj"))
            vague = pattern in (_WANT_BACK, _MISS, _COMING, _DO_WANT) and not _MESSAGE_NOUN.search(obj)
            if vague and not any(known_topic(word) for word in _topics(obj)):
                continue  # "I want to finish the report today": not about messages
            return Reading("opt_in", _topics(obj))
    if (m := _START.search(text)) is not None:
        return Reading("opt_in", _topics(_clause(text[m.end() :])))
    if (m := _KEEP.search(text)) is not None:
        topics = _topics(_clause(text[m.end() :]))
        named = any(known_topic(t) for t in topics) or _MESSAGE_NOUN.search(text[m.end() :])
        return Reading("opt_in", topics) if topics and named else Reading("reply")
    return None


def _names_messages(phrase: str, topics: tuple[str, ...]) -> bool:
    """The phrase is about a kind of message: a message noun, or a topic messages are about."""
    return bool(_MESSAGE_NOUN.search(phrase)) or any(known_topic(t) for t in topics)


def _not_about_messages(text: str, trigger: str, rest: str, topics: tuple[str, ...]) -> bool:
    """A stop phrase that, here, is not about our messages: "cancel my 3pm", "stop by the library?",
    "stop it" (pushback), "no more excuses", "how do I unsubscribe from the gym newsletter?"."""
    named = _MESSAGE_NOUN.search(rest) or _THESE.search(trigger) or _THESE.match(rest.strip())
    known = any(known_topic(w) for w in topics)
    if _NEEDS_NOUN.match(trigger) and not named and not (known and trigger in ("pause", "hold")):
        return True
    quiet_while = trigger == "quiet" and _duration(text) is not None
    if trigger in ("stop", "quiet") and not (_MESSAGE_NOUN.search(rest) or known or quiet_while):
        return True
    if trigger.startswith("no") and not named and not known:
        return True
    return text.rstrip().endswith("?") and bool(topics) and not known


def _stop(text: str) -> Reading | None:
    m = _TOPIC_STOP.match(text)
    if m is not None and (topics := _topics(m.group("obj"))) and _names_messages(m.group("obj"), topics):
        return Reading("opt_out_topic", topics)  # "weather: stop"
    plain = _without_span(text)  # "for the next two hours" is a span, not a topic
    for m in _STOP.finditer(plain):
        if _NOT_BEFORE.search(plain[: m.start()]):
            continue  # "I don't want to unsubscribe", "don't unsubscribe me from weather"
        rest = _clause(plain[m.end() :])
        trigger = m.group(0)
        topics = _topics(rest)
        if trigger.startswith("remove me") and not topics:
            return Reading("opt_out")  # "remove me from this": from the service
        if _not_about_messages(text, trigger, rest, topics):
            continue
        hours = _duration(text)
        if trigger in ("mute", "pause", "silence", "snooze") and hours is None:
            hours = 24.0 * 7  # a mute with no span: a week
        day_end = hours is not None and _DAY_END.search(text) is not None
        if topics:
            return Reading("mute_topic" if hours else "opt_out_topic", topics, hours, day_end)
        if _THESE.search(rest) or _THESE.search(trigger):
            return Reading("opt_out_category")
        muting = trigger.startswith(("mute", "pause", "silence", "snooze", "hold", "quiet", "no", "don"))
        if hours is not None and (_MESSAGE_NOUN.search(rest) or muting):
            return Reading("mute", (), hours, day_end)
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
        if _EXCEPT.search(t) and stop.intent != "opt_out_category":
            return Reading("reply")  # "stop all notifications except deadlines": see ``_EXCEPT``
        return stop
    if _NEGATIVE.search(_NEGATED.sub(" ", t)):
        return Reading("negative")
    return Reading("reply")
