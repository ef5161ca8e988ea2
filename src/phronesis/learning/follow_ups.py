"""What a follow-up says about the action just taken: undo, thanks, a complaint, a question, or nothing.

Why: a confirmation detector that takes any "worked", "great", "nice" or "exactly" for thanks
reads "nothing worked", "there is a great deal of smoke in the kitchen", "what exactly is the
thermostat set to?" and "the weather is nice today" each as a positive worth more than an
explicit rating. Keywords alone cannot read a follow-up; a few rules about how people answer an
action can, and are measured: ``benchmarks/data/follow_ups.jsonl`` (251 follow-ups, undo, thanks,
complaint, question and unrelated, plain, negated and tricky forms; ``bench_follow_ups.py``).

The rules, first match wins:

1. a **question** (it ends with "?" or opens like one) asks, it does not answer, unless it asks
   to put something back ("can you undo that?");
2. an **undo**: an undo word (undo, revert, roll back, scrap that, never mind…), or putting back
   (put/turn/switch/set … back, back to how it was, restore the old …, lock it again), not negated
   in its clause ("no need to undo", "nothing to undo");
3. a **complaint**: it did not help or made it worse ("didn't work", "still cold", "no change",
   "useless"), a praise word followed by what went wrong ("great, now it's too hot") or taken
   back ("good try, but …"), or a refusal ("no thanks");
4. **thanks**: a thanks phrase (thank you, cheers, appreciated, that worked, just what I needed,
   no complaints…), or a praise word said of the action ("perfect", "that's great"), not of
   something else ("lunch was excellent", "thanks to the rain");
5. otherwise nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from phronesis.learning.undo_detection import KeywordDetector

__all__ = ["DEFAULT_THANKS", "DEFAULT_UNDO", "FollowUpReader", "Reading"]

Reading = Literal["undo", "thanks", "complaint", "question", "other"]

DEFAULT_UNDO = ("undo", "revert", "cancel", "rollback", "nevermind", "never mind")
"""Seed 001's undo keywords (``LEARNING_UNDO_KEYWORDS``); the reader adds the ways of putting back."""

DEFAULT_THANKS = (
    "thanks",
    "thank you",
    "thx",
    "ty",
    "cheers",
    "appreciated",
    "appreciate it",
    "that worked",
    "that helped",
    "that did it",
    "that fixed it",
    "fixed it",
    "did the trick",
    "works now",
    "much better",
    "nice one",
    "spot on",
    "exactly right",
    "just what i wanted",
    "just what i needed",
    "that's what i needed",
    "you're a star",
    "great stuff",
    "good job",
    "well done",
    "no complaints",
    "nothing wrong with that",
    "couldn't be better",
    "not a single issue",
)
"""Phrases that thank or confirm whatever they are said of (``LEARNING_CONFIRM_KEYWORDS``)."""

_PRAISE = frozenset(
    {"perfect", "great", "awesome", "excellent", "wonderful", "super", "lovely", "brilliant", "fantastic"}
    | {"amazing", "sick", "sweet", "nice", "cool", "ta"}
)
"""Words that praise whatever they are said of: thanks only when said of the action."""

_NORMAL = str.maketrans({"\u2019": "'", "\u2018": "'"})


def _normal(text: str) -> str:
    return " ".join(text.lower().translate(_NORMAL).split())


_ASKS_TO_PUT_BACK = re.compile(
    r"\b(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:undo|revert|reverse|put|turn|switch|set|change|cancel|"
    r"stop|roll)\b"
)
_PUT_BACK = re.compile(
    r"\b(?:put|turn|turned|switch|switched|set|change|changed|lower|raise|go|going|take|bring|move|get)\b"
    r"(?:\s+[\w'-]+){0,5}?\s+back\b"
    r"|\bback\s+to\s+(?:how|what|the\s+(?:way|previous|old|original|last)|normal)\b"
    r"|\brestore\s+the\s+(?:old|previous|original)\b"
    r"|\b(?:scrap|reverse)\s+(?:that|it|this)\b"
    r"|\btake\s+that\s+back\b"
    r"|(?:^|[,;.!]\s*)(?:\w+\s+){0,3}?(?:close|lock|open|shut|unlock|turn|switch)\b(?:\s+[\w'-]+){0,4}\s+again\b"
)
_CANCEL = re.compile(r"\bcancel\b(?=\s*(?:that|it|this|everything|all|please|now|the\s+last|[,.!?]|$))")
""""Cancel" undoes only what it points back to: not "cancel my evening plans", "the match was cancelled"."""
_NOT_UNDONE = re.compile(
    r"\b(?:no\s+need\s+to|nothing\s+to|won't\s+need\s+(?:that|it)|don't\s+need\s+to|no\s+reason\s+to)\b"
)
_PRAISED = re.compile(
    r"\b(?:no\s+complaints|nothing\s+wrong\s+with\s+(?:that|it)|not\s+a\s+single\s+(?:issue|problem)|"
    r"couldn't\s+be\s+better|can't\s+complain|no\s+problems?\s+(?:at\s+all|with\s+(?:that|it)))\b"
)
"""A complaint word denied: what these say is that it went well."""
_COMPLAINT = re.compile(
    r"\b(?:didn't|doesn't|did\s+not|does\s+not|isn't|hasn't|not)\s+(?:\w+\s+)?(?:help|helping|helped|work|working|"
    r"worked|do\s+anything|change\s+anything|fix)\b"
    r"|\bdon't\s+think\s+(?:that|it)\s+(?:worked|helped|did\s+anything)\b|\bnot\s+the\s+right\b"
    r"|\beven\s+(?:worse|louder|quieter|colder|hotter|warmer|darker|brighter|noisier|slower)\b"
    r"|\b(?:now|still)\s+(?:it's\s+|it\s+is\s+|its\s+)?(?:way\s+)?too\s+\w+|\bit's\s+(?:way\s+)?too\s+\w+\s+now\b"
    r"|\bnot\s+(?:so\s+|that\s+|very\s+)?(?:great|good|perfect|ideal|helpful|nice|better)\b"
    r"|\bnot\s+what\s+i\s+(?:wanted|asked|meant|needed)\b|\bthat's\s+not\s+(?:it|right)\b|\bnot\s+quite\b"
    r"|\bmade\s+(?:no|zero)\s+difference\b|\bmade\s+it\s+\w+er\b|\bdoesn't\s+seem\s+to\b"
    r"|\b(?:rubbish|terrible|awful|annoying|disappointing|waste\s+of)\b|\bthanks\s+for\s+nothing\b|\byeah\s+right\b"
    r"|\bnot\s+any\s+(?:\w+er|better|different)\b|\bit's\s+not\s+any\b"
    r"|\bno\s+(?:change|difference|effect)\b|\bbarely\s+(?:tell|notice)\b|\bnothing\s+(?:worked|changed|happened)\b"
    r"|\b(?:useless|pointless|worse|wrong|broken)\b|\bugh\b|\bwell\s+that\s+worked\W*not\b"
    r"|\bstill\s+(?:\w+\s+)?(?:cold|freezing|hot|boiling|warm|dark|loud|noisy|broken|down|can't|not|no)\b"
    r"|\b(?:locked|locking|shut|shutting)\s+me\s+out\b|\bnobody\s+can\b"
    r"|\bno\s+thanks\b|\bthanks\s+but\s+no\b|\bno\s+thank\s+you\b"
)
_SARCASM = re.compile(
    r"^(?:\w+\s+){0,1}?(?:great|perfect|lovely|wonderful|brilliant|nice|fantastic|super|awesome|just\s+great)"
    r"\W+now\b|\bnice\s+job\s+\w+ing\b|\bthanks\s+a\s+lot\W+now\b|\W+not\W*$|^oh\s+great\b"
)
_BUT = re.compile(r"\b(?:but|except|though|however|although)\b")
_THANKS_NOT = re.compile(r"\bthanks\s+to\b|\bthanked\b|\bthanking\b")
_ACTION_SUBJECT = re.compile(
    r"(?:^|[,;.!]\s*)(?:(?:that|it|this)(?:'s|\s+is|\s+was)?|(?:that's|it's|this\s+is|that\s+is|it\s+is))\s+"
    r"(?:(?:really|so|just|absolutely|pretty|very|simply)\s+)?"
    r"(?:perfect|great|awesome|excellent|wonderful|super|lovely|brilliant|fantastic|amazing|nice)\b"
)


class FollowUpReader:
    def __init__(self, undo: Iterable[str] = DEFAULT_UNDO, thanks: Iterable[str] = DEFAULT_THANKS) -> None:
        given = [word.strip().lower() for word in undo if word.strip()]
        self._cancel = "cancel" in given
        self._undo = KeywordDetector([word for word in given if word != "cancel"] or ["undo"])
        self._thanks = KeywordDetector(thanks, what="confirmation", negations=("no",))

    def read(self, text: str) -> Reading:
        said = _normal(text)
        if not said:
            return "other"
        if _asks(said) and not _ASKS_TO_PUT_BACK.search(said):
            return "question"
        if self._undoes(said):
            return "undo"
        if _PRAISED.search(said):
            return "thanks"
        if _COMPLAINT.search(said) or _SARCASM.search(said):
            return "complaint"
        if self._thanked(said):
            # praise taken back in the same breath ("good try, but …") is not thanks; praise after
            # the "but" is ("I was about to …, but now it's cosy, thanks")
            last = _BUT.split(said)[-1]
            return "thanks" if last == said or self._thanked(last.strip(" ,.")) else "complaint"
        return "other"

    def _undoes(self, said: str) -> bool:
        if _NOT_UNDONE.search(said):
            return False
        cancelled = self._cancel and bool(_CANCEL.search(said)) and not _negated_cancel(said)
        return cancelled or self._undo.matches(said) or bool(_PUT_BACK.search(said))

    def _thanked(self, said: str) -> bool:
        if _THANKS_NOT.search(said) and not re.search(r"\bthanks\b(?!\s+to\b)", said):
            return False
        if self._thanks.matches(said.replace("thanks to", "")):
            return True
        words = re.findall(r"[a-z']+", said)
        if not words:
            return False
        # a praise word said of the action: the whole answer ("perfect!", "awesome"), its opening
        # ("excellent, exactly right"), or of "that"/"it" ("that's great"); not of something else
        # ("lunch was excellent", "the band's new album is perfect")
        if len(words) <= 2 and words[0] in _PRAISE:
            return True
        if words[0] in _PRAISE and re.match(r"^[a-z']+\s*[,!.]", said):
            return True
        return bool(_ACTION_SUBJECT.search(said))


def _asks(said: str) -> bool:
    return said.endswith("?")


def _negated_cancel(said: str) -> bool:
    return bool(re.search(r"\b(?:don't|do\s+not|no\s+need\s+to|never|won't|shouldn't)\s+cancel\b", said))
