"""What a user's reply to proactive messages asks for (seed 004 §5, issue 24).

- ``opt_out``: no more proactive messages at all ("unsubscribe", "stop", "stop messaging me",
  "don't text me anymore"). It holds whether or not a send is pending: before, "unsubscribe"
  with nothing pending did nothing at all;
- ``opt_out_category``: no more messages *like this one* ("please stop sending me these",
  "no more of these reminders"): the answered message's category is switched off. With no
  message to point at, it is an opt-out of everything: the user asked to stop, and guessing
  which kind they meant would send them one more;
- ``negative``: pushback that is not a request to stop ("not helpful", "annoying", "spam");
- ``reply``: anything else, including a deferral: "not now, thanks! I'll do it tonight" answered
  the message and was counted negative before.

Rules, not a model: a reply decides whether a person keeps getting messages, and each phrase
above is a test. Negated pushback ("don't stop", "not annoying at all") is not pushback.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["ReplyIntent", "classify_reply"]

ReplyIntent = Literal["opt_out", "opt_out_category", "negative", "reply"]

_THESE = r"(these|this kind|this type|such|them|those|(these|this|such|those) (kind|type|sort)s?( of \w+)?)"
_SEND = r"(send(ing)?|text(ing)?|messag(e|ing)|remind(ing)?|ping(ing)?|notify(ing)?|bug(ging)?)"

_CATEGORY = re.compile(
    rf"\b(stop {_SEND}( me)?( about| of| with)? {_THESE}|no more (of )?{_THESE}|"
    rf"(don'?t|do not|never) {_SEND}( me)?( about| of| with)? {_THESE}|"
    rf"(i )?(don'?t|do not) (want|need) {_THESE})\b",
    re.IGNORECASE,
)
_ALL = re.compile(
    rf"\b(unsubscribe|opt[ -]?out|stop {_SEND}( me)?|stop all|(don'?t|do not|never) {_SEND} me|"
    r"no more (messages|texts|reminders|notifications)|leave me alone for good|remove me)\b",
    re.IGNORECASE,
)
_STOP_ALONE = re.compile(r"^\s*(please\s+)?(stop|cancel|end|quit|unsubscribe)(\s+please)?\W*$", re.IGNORECASE)
_NEGATIVE = re.compile(
    r"\b(stop it|leave me alone|(not|isn'?t|wasn'?t) (helpful|useful|relevant)|useless|annoying|irritating|"
    r"go away|shut up|too many (messages|texts|reminders|notifications)|spam(my)?|stop bothering me)\b",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(not|never|isn'?t|wasn'?t|no)\s+(at all\s+)?(annoying|spam(my)?|irritating|useless)\b", re.I)


_KEEP = re.compile(r"\b(don'?t|do not|never|please don'?t)\s+stop\b", re.IGNORECASE)
"""Asking for more is not asking to stop: "don't stop reminding me" opted a user out (a trial found it)."""


def classify_reply(text: str) -> ReplyIntent:
    if _KEEP.search(text):
        return "reply"
    if _STOP_ALONE.match(text):
        return "opt_out"
    if _CATEGORY.search(text):
        return "opt_out_category"
    if _ALL.search(text):
        return "opt_out"
    cleaned = _NEGATED.sub(" ", text)
    if _NEGATIVE.search(cleaned):
        return "negative"
    return "reply"
