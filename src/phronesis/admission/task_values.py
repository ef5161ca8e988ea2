"""When two runs are the same task.

A run's task is the same as another's when their task ids are equal: the ``task_id`` the agent
sent, or the normalised task text (``fingerprints.task_id_for``). Two different task texts can
still be one task said twice ("Generate the schema" / "Generate schema for orders"), and seed
003 lets a near-duplicate of such a run merge into it or be dropped as redundant. But the
sentence model cannot tell values apart: "Process invoice 29 for customer 44" and "Process
invoice 26 for customer 23" embed at 0.96 and more, and 228 of 300 different invoice runs were
merged. So another task's run is a duplicate only when its task text names the same values:

- anything with a digit: ``29``, ``v2``, ``INV-0042``, ``2026-03-01``;
- identifiers and addresses: a word with ``@``, ``/``, ``_``, ``:``, or a dot inside
  (``orders.csv``, ``ann@acme.io``, ``s3://bucket``, ``user_id``);
- quoted text: ``"Q3 report"``, ``'acme'``;
- named things: a capitalised word that does not start a sentence (``Acme``, ``Berlin``).

Compared case-insensitively, as sets; and a task text is never its opposite said twice ("Disable
two-factor authentication" / "Enable …", ``phronesis.contrast``). One rule
(``kinship``) serves the rule judge and the LLM judge's verdicts (``rule_judge``, ``llm_judge``).
It errs towards keeping a run: two phrasings of one task that name things differently ("the DB
schema" / "the database schema") are ADDed, not merged, which costs a stored duplicate, never a
lost run.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TypedDict

from phronesis.contrast import contrast

__all__ = ["Kinship", "kinship", "same_values", "task_values"]

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<!\w)'([^']+)'(?!\w)")
_TOKEN = re.compile(r"[\w@/:.\-]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _is_value(token: str, first: bool) -> bool:
    core = token.strip(".:-/")
    if not core:
        return False
    if any(ch.isdigit() for ch in core) or any(ch in core for ch in "@/_:"):
        return True
    if "." in core:  # a dot inside a word: a file, host or dotted name (a sentence's full stop was stripped)
        return True
    return not first and core[0].isupper()


@lru_cache(maxsize=4096)
def task_values(task: str) -> frozenset[str]:
    """The values a task text names: what makes it this task and not another of its kind."""
    values = {next(group for group in match.groups() if group).strip().lower() for match in _QUOTED.finditer(task)}
    for sentence in _SENTENCE.split(_QUOTED.sub(" ", task)):
        for i, token in enumerate(_TOKEN.findall(sentence)):
            if _is_value(token, first=i == 0):
                values.add(token.strip(".:-/").lower())
    return frozenset(values)


def same_values(task: str, other: str) -> bool:
    return task_values(task) == task_values(other)


class Kinship(TypedDict):
    same_values: bool
    """The same values, and not the opposite task: another task's text that may be this one said twice."""
    opposite: str | None
    """Why it is the opposite task (``Contrast.describe``), or None."""


def kinship(stored: str, task: str) -> Kinship:
    """How another task's text stands to ``task``: ``Candidate``'s ``same_values`` and ``opposite``."""
    opposite = contrast(stored, task)
    return {
        "same_values": opposite is None and same_values(stored, task),
        "opposite": None if opposite is None else opposite.describe(),
    }
