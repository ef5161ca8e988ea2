"""Sensitive topics: seed 002 escalates automatically on refund, legal, complaint, sue, compensation.

The seed's own check is ``keyword in query.lower()`` — so "issue" contains "sue" and
"illegally" contains "legal". Matching here is on word boundaries, with the common
inflections (refunds, refunded, complaints, suing, sued).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["TopicMatcher"]


class TopicMatcher:
    def __init__(self, topics: Sequence[str]) -> None:
        self.topics = [t.strip().lower() for t in topics if t.strip()]
        self._patterns = [(topic, re.compile(self._pattern(topic), re.IGNORECASE)) for topic in self.topics]

    @staticmethod
    def _pattern(topic: str) -> str:
        words = [re.escape(w) for w in topic.split()]
        head, last = r"\s+".join(words[:-1]), words[-1]
        bare = last[:-1] if last.endswith("e") and len(last) > 2 else last  # sue → suing
        prefix = rf"{head}\s+" if head else ""
        return rf"\b{prefix}(?:{last}(?:s|es|d|ed)?|{bare}ing)\b"

    def find(self, text: str) -> list[str]:
        """The topics ``text`` mentions, in configured order."""
        return [topic for topic, pattern in self._patterns if pattern.search(text)]
