"""Does this event say a keyword? Undo (ORIGINS bug 10) and confirmation ("thanks, that worked").

Keywords on word boundaries, with negation.

GLADyS matched keywords as substrings, so "what is your cancellation policy?" undid every
recent fire. Here a keyword must be a whole word (simple inflections allowed: "cancelled",
"reverting"), and a keyword negated within its own clause — "don't undo that", "no need
to cancel" — does not count. "No, undo it" still does: a bare "no" is not a negation of
what follows it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["KeywordDetector", "UndoDetector"]

_NEGATIONS = frozenset(
    {
        "don't",
        "dont",
        "do not",
        "not",
        "never",
        "shouldn't",
        "won't",
        "wouldn't",
        "can't",
        "cannot",
        "without",
        "no need to",
    }
)
_CLAUSE_BREAK = re.compile(r"[.;!?,:]|\bbut\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z']+")
_LOOKBACK_WORDS = 3


class KeywordDetector:
    def __init__(self, keywords: Iterable[str], *, what: str = "undo", negations: Iterable[str] = ()) -> None:
        """``negations``: words that negate a keyword besides the usual ones ("no" for thanks: "no
        thanks" is a refusal, where "no, undo it" is still an undo)."""
        self._negations = _NEGATIONS | frozenset(negations)
        words = sorted({k.strip().lower() for k in keywords if k.strip()}, key=len, reverse=True)
        if not words:
            raise ValueError(f"at least one {what} keyword is needed")
        alternatives = "|".join(r"\s+".join(map(re.escape, k.split())) for k in words)
        self._pattern = re.compile(rf"\b(?:{alternatives})(?:s|d|ed|led|ing|ling)?\b", re.IGNORECASE)

    def matches(self, text: str) -> bool:
        return any(not self._negated(text, m.start()) for m in self._pattern.finditer(text))

    def _negated(self, text: str, start: int) -> bool:
        before = text[:start]
        breaks = list(_CLAUSE_BREAK.finditer(before))
        clause = before[breaks[-1].end() :] if breaks else before
        words = _WORD.findall(clause.lower().replace("\u2019", "'"))[-_LOOKBACK_WORDS:]
        window = " ".join(words)
        return any((f" {negation} " in f" {window} ") for negation in self._negations)


UndoDetector = KeywordDetector
