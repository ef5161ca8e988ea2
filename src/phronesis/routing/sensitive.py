"""Sensitive topics: seed 002 escalates automatically on refund, legal, complaint, sue, compensation
(its code) and custom (its decision process: "Detect sensitive keywords (refund, complaint, legal,
custom)").

The seed's own check is ``keyword in query.lower()``: "issue" contains "sue", and it catches
"complain", "illegal" and "refundable" only by accident of spelling. Here each topic is a
*family of words* matched on word boundaries: the seed's topics have their families written
out (``complain``/``complained`` for complaint, ``illegal``/``lawyer``/``lawsuit`` for legal,
``customized`` but never ``customer`` for custom); a topic you configure that is not among
them gets its regular inflections (``-s``, ``-ed``, ``-ing``).

One exception, from the seed's own decision table: asking *about* a policy is a RETRIEVE
("What's your refund policy?"), wanting the thing is an escalation ("I want a refund for the
entire year"). A mention followed by a policy noun (``refund policy``, ``legal terms``) in a
question is not sensitive; any other mention in the same message still is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["TOPIC_FAMILIES", "TopicMatcher"]

TOPIC_FAMILIES: Mapping[str, tuple[str, ...]] = {
    "refund": ("refund", "refunds", "refunded", "refunding", "refundable", "non-refundable", "nonrefundable"),
    "legal": (
        "legal",
        "legally",
        "illegal",
        "illegally",
        "legality",
        "lawyer",
        "lawyers",
        "attorney",
        "attorneys",
        "lawsuit",
        "lawsuits",
        "litigation",
    ),
    "complaint": ("complaint", "complaints", "complain", "complains", "complained", "complaining"),
    "sue": ("sue", "sues", "sued", "suing"),
    "compensation": ("compensation", "compensate", "compensates", "compensated", "compensating"),
    "custom": (
        "custom",
        "customized",
        "customised",
        "customize",
        "customise",
        "customization",
        "customisation",
        "bespoke",
    ),
}
"""The seed's topics and the words that mean them."""

_POLICY_NOUNS = r"(?:policy|policies|terms|period|window|rules|conditions|process|page)"
_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:what|what's|whats|how|where|when|which|who|is|are|do|does|can|could|may|tell me)\b", re.I
)


def _alternatives(topic: str) -> list[str]:
    family = TOPIC_FAMILIES.get(topic)
    if family is not None:
        return [re.escape(word) for word in sorted(family, key=len, reverse=True)]
    words = [re.escape(w) for w in topic.split()]
    head, last = r"\s+".join(words[:-1]), words[-1]
    bare = last[:-1] if last.endswith("e") and len(last) > 2 else last  # sue → suing
    prefix = rf"{head}\s+" if head else ""
    return [rf"{prefix}(?:{last}(?:s|es|d|ed)?|{bare}ing)"]


def _pattern(topic: str) -> str:
    """One of the topic's words, whole (a hyphen joins: "non-refundable"), and the policy noun after it if any."""
    return rf"(?<![\w-])(?:{'|'.join(_alternatives(topic))})(?![\w-])(\s+{_POLICY_NOUNS}\b)?"


class TopicMatcher:
    def __init__(self, topics: Sequence[str]) -> None:
        self.topics = [t.strip().lower() for t in topics if t.strip()]
        self._patterns = [(topic, re.compile(_pattern(topic), re.I)) for topic in self.topics]

    def find(self, text: str) -> list[str]:
        """The topics ``text`` mentions, in configured order (a question about a policy is not a mention)."""
        question = bool(_QUESTION.search(text))
        found = []
        for topic, pattern in self._patterns:
            for match in pattern.finditer(text):
                if not (question and match.group(1)):
                    found.append(topic)
                    break
        return found
