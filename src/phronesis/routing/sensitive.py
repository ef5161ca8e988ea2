"""Sensitive topics: seed 002 escalates automatically on refund, legal, complaint, sue, compensation
(its code) and custom (its decision process: "Detect sensitive keywords (refund, complaint, legal,
custom)").

The seed's own check is ``keyword in query.lower()``: "issue" contains "sue", and it catches
"complain", "illegal" and "refundable" only by accident of spelling. Here each topic is a
*family of words* matched on word boundaries: the seed's topics have their families written
out (``complain``/``complained`` for complaint, ``illegal``/``lawyer``/``lawsuit`` for legal,
``customized`` but never ``customer`` for custom); a topic you configure that is not among
them gets its regular inflections (``-s``, ``-ed``, ``-ing``).

From the seed's own decision table, asking *about* a policy is a RETRIEVE ("What's your refund
policy?"), wanting the thing is an escalation ("I want a refund for the entire year"). Read that
narrowly, "Are annual plans refundable?", "Do you support custom fields?" and "Can I customize my
dashboard colors?" would escalate, so a mention is read by intent:

- a *demand* is sensitive wherever it stands: the user wants the thing for themselves ("I want
  a refund", "Can I get a custom contract with special terms?", "Refund my last invoice",
  "we need custom pricing for 5,000 seats"), or threatens ("I'll sue");
- a *question* without a demand is about a policy, a feature or a price, and is not
  ("if I cancel in the first month, can I get a refund?" asks what the policy says);
- any other statement that mentions a topic is sensitive, unless the topic names a policy
  ("refund policy", "legal terms").

Suing is never a question of policy: the ``sue`` topic is always sensitive. A topic a tenant
configures beyond the seed's is read plainly: any mention but a question about its policy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["TOPIC_FAMILIES", "TopicMatcher", "asks_a_question", "asks_for_a_person", "demands", "only_questions"]

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

_POLICY_NOUNS = (
    r"(?:policy|policies|terms|period|window|rules|conditions|process|page"
    # a feature of the product is not a demand either ("I mean custom fields, on the Team plan")
    r"|fields?|colou?rs?|domains?|reports?|roles?|dashboards?|branding|templates?|objects?|properties|views?|tags?)"
)
_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:what|what's|whats|how|where|when|which|who|is|are|do|does|can|could|may|tell me)\b", re.I
)


_DEMAND = re.compile(
    r"\b(?:i|we)\s+(?:really\s+|still\s+|just\s+)?(?:want|need|demand|expect|deserve|require|insist|would like|'d like"
    r"|am owed|are owed|will|'ll|am going to|'m going to|are going to|'re going to|am|'m)\b(?! to know| to understand)"
    r"|\b(?:can|could|may)\s+(?:i|we)\s+(?:please\s+)?(?:get|have|negotiate|receive|request|ask for|arrange|sign)\b"
    r"|\b(?:will|would|can|could)\s+you\s+(?:please\s+)?(?:give|issue|process|waive|refund|compensate|make|draft|write)\b"
    r"|\b(?:give|send|issue|pay)\s+(?:me|us)\b|\bmy money back\b(?!\s*\?)"
    r"|^\s*(?:please\s+)?(?:refund|compensate|waive|reimburse|credit)\b"
    r"|\bfile\s+a\s+complaint\b|\b(?:i|we)\s+(?:have|had)\s+a\s+complaint\b"
    r"|\bwho\s+(?:do|can|should)\s+(?:i|we)\s+(?:complain|talk|speak|write)\b"
    r"|\b(?:are|is)\s+(?:you|someone|anyone)\s+going\s+to\s+(?:compensate|refund|reimburse|pay)\b",
    re.I,
)
_CONDITION = re.compile(r"\b(?:if|when|once|after|before|in case|unless)\b", re.I)
_PERSON = re.compile(
    r"\b(?:speak|talk|chat|connect|transfer|put)\b[^.?!]*\b(?:human|person|someone|somebody|manager|supervisor|"
    r"agent|representative|colleague)\b|\b(?:real|actual|live)\s+(?:person|human|agent)\b"
    r"|\b(?:want|need|get|see)\s+(?:a|the|your|my)\s+(?:manager|supervisor)\b"
    r"|\bget\s+me\s+(?:a|an|some)\s+(?:human|person|someone)\b|\bescalate\b",
    re.I,
)


def asks_a_question(text: str) -> bool:
    """A question (a question mark, or opening with a question word)."""
    return bool(_QUESTION.search(text))


def only_questions(text: str) -> bool:
    """Every sentence of the message is a question (no statement beside it)."""
    sentences = [x for x in re.split(r"(?<=[.!?])\s+", text.strip()) if x.strip()]
    return bool(sentences) and all(_QUESTION.search(x) for x in sentences)


def asks_for_a_person(text: str) -> bool:
    """The user asks to talk to a person (seed 002's explicit escalation)."""
    return bool(_PERSON.search(text))


def demands(text: str) -> bool:
    """The user wants something for themselves, or threatens: not a question about a policy. A
    question whose demand is conditional ("Can I get a refund if I cancel in the first month?")
    asks what the policy says."""
    match = _DEMAND.search(text)
    if match is None:
        return False
    return not (asks_a_question(text) and _CONDITION.search(text))


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
        """The topics ``text`` raises as a demand, in configured order (see the module: a question
        about a policy, a feature or a price raises none)."""
        question, demand = asks_a_question(text), demands(text)
        found = []
        for topic, pattern in self._patterns:
            for match in pattern.finditer(text):
                about_a_policy = bool(match.group(1))
                if topic not in TOPIC_FAMILIES:  # a topic the tenant added: only a policy question is not one
                    raised = not (question and about_a_policy)
                else:
                    raised = topic == "sue" or demand or not (question or about_a_policy)
                if raised:
                    found.append(topic)
                    break
        return found
