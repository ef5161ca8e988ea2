"""Do two retrieved sources contradict each other?

The original flags a conflict when two pricing or policy documents' *scores* differ by
more than 0.3 (ORIGINS §2) — that says nothing about their content. Here two sources of
one doc type that are about the same thing (embedding similarity ≥ a threshold) conflict
when they state different values *of the same kind* (two prices, two refund windows, two
seat limits) or when one negates what the other asserts.

A figure is a number with its kind: a currency (``$29``), a percentage, a duration (days,
weeks, months, years), a count of users or seats. A kind only one source mentions is extra
detail, not a contradiction ("$29 per month" and "$29 per month for up to 3 users" agree).
Versions and years ("v2", "2024") are names, not figures.

Figures and negations are compared statement by statement (sentences and ``;`` clauses), and
only between statements about the same thing: at least half their content words shared. A
refunds policy ("annual plans are refundable within 30 days; subscriptions can be paused for
up to 3 months") and a contracts page ("annual plans run 12 months; the trial can be extended
by 14 days") state different durations of different things; compared whole, they conflict
and every question about cancelling escalates (the sales set with a fuller knowledge base).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from phronesis.embeddings.types import Vectors
from phronesis.routing.lexical import content_words
from phronesis.routing.retrieval import Conflict, RetrievedSource

__all__ = ["figures", "find_conflicts"]

_FIGURE = re.compile(
    r"(?P<currency>[$€£])?\s?(?P<value>\d+(?:[.,]\d+)*)\s*"
    r"(?P<unit>%|percent\b|days?\b|weeks?\b|months?\b|years?\b|hours?\b|users?\b|seats?\b|members?\b|k\b)?",
    re.I,
)
_VERSION_OR_YEAR = re.compile(r"(?<![\w.])v\d+(?:\.\d+)*\b|\b(?:19|20)\d\d\b", re.I)
_KINDS = {
    "%": "percent",
    "percent": "percent",
    "hour": "duration",
    "day": "duration",
    "week": "duration",
    "month": "duration",
    "year": "duration",
    "user": "seats",
    "seat": "seats",
    "member": "seats",
}
_DAYS = {"hour": 1 / 24, "day": 1.0, "week": 7.0, "month": 365.25 / 12, "year": 365.25}
_COMMON = frozenset(
    {
        "the", "a", "an", "our", "we", "you", "your", "it", "its", "this", "that", "these", "those", "all",
        "each", "every", "their", "there", "here", "they", "prices", "price", "plans", "plan",
    }
)  # fmt: skip
"""Capitalised at the start of a sentence, but naming nothing."""
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|can't|don't|doesn't|won't|isn't)\b", re.I)
_STATEMENT = re.compile(r"(?<=[.!?;])\s+|\n+")
SAME_SUBJECT = 0.5
"""The share of content words (Jaccard) two statements must have in common to be about one thing."""


def figures(text: str) -> dict[str, dict[str, str]]:
    """The figures in ``text`` by kind, each as canonical value → how the text wrote it:
    ``{"price": {"$49": "$49"}, "duration": {"30 day": "30 days"}}``. A number with neither a
    currency nor a unit is not a figure; versions and years are skipped."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for match in _FIGURE.finditer(_VERSION_OR_YEAR.sub(" ", text)):
        value = match.group("value").replace(",", "")
        unit = (match.group("unit") or "").lower()
        written = re.sub(r"\s+", " ", match.group(0).strip().lower())
        if match.group("currency") or unit == "k":
            found["price"][f"{match.group('currency') or ''}{value}{'k' if unit == 'k' else ''}"] = written
        elif unit:
            singular = unit if unit in ("%", "percent") else unit.rstrip("s")
            kind = _KINDS[singular]
            if kind == "duration":  # 30 days and 1 month, 12 months and 1 year, say the same
                days = float(value) * _DAYS[singular]
                canonical = f"{days:.0f} days" if days >= 1 else f"{days * 24:.0f} hours"
            else:
                canonical = f"{value}{'%' if kind == 'percent' else ' ' + singular}"
            found[kind][canonical] = written
    return dict(found)


def _subject(statement: str) -> frozenset[str]:
    """The statement's content words (``lexical.content_words``), without its figures and negations."""
    return frozenset(w for w in content_words(_FIGURE.sub(" ", statement)) if not _NEGATION.fullmatch(w))


_Statement = tuple[frozenset[str], dict[str, dict[str, str]], bool, frozenset[str]]
_NAME = re.compile(r"\b[A-Z][A-Za-z0-9]+\b")


def _names(statement: str) -> frozenset[str]:
    """The capitalised words that name what a statement is about ("Pro", "Starter", "Annual"), the
    function words left out: two statements naming different things are about different things."""
    return frozenset(w.lower() for w in _NAME.findall(statement)) - _COMMON


def _statements(text: str) -> list[_Statement]:
    """Each statement's subject words, figures, whether it negates, and the names it uses."""
    return [
        (_subject(statement), figures(statement), bool(_NEGATION.search(statement)), _names(statement))
        for statement in _STATEMENT.split(text)
        if statement.strip()
    ]


def _same_subject(a: _Statement, b: _Statement) -> bool:
    """At least half their content words shared, and not naming different things ("The Starter plan
    costs $29" and "The Pro plan costs $79" are two plans, not two prices of one)."""
    if a[3] and b[3] and not a[3] & b[3]:
        return False
    return bool(a[0] and b[0]) and len(a[0] & b[0]) / len(a[0] | b[0]) >= SAME_SUBJECT


def _agrees(statement: _Statement, others: list[_Statement]) -> bool:
    """Another text states this statement's figures about the same thing, every kind they share
    alike: the texts agree on it, and a statement there about a neighbouring thing is no
    contradiction ("Pro costs $79" beside a sheet saying "Starter costs $29 … Pro costs $79")."""
    for other in others:
        shared = statement[1].keys() & other[1].keys()
        alike = all(statement[1][kind].keys() & other[1][kind].keys() for kind in shared)
        if shared and alike and _same_subject(statement, other):
            return True
    return False


def _clash(a: list[_Statement], b: list[_Statement]) -> str | None:
    """Why two texts (their ``_statements``) contradict each other, if a statement of one and a
    statement of the other about the same thing state different values of one kind, or one
    negates what the other says."""
    for one in a:
        if _agrees(one, b):
            continue
        _, figures_a, negated_a, _ = one
        for other in b:
            _, figures_b, negated_b, _ = other
            if not _same_subject(one, other) or _agrees(other, a):
                continue
            for kind in sorted(figures_a.keys() & figures_b.keys()):
                if not figures_a[kind].keys() & figures_b[kind].keys():
                    first, second = sorted(figures_a[kind].values())[:3], sorted(figures_b[kind].values())[:3]
                    return f"different {kind}: {', '.join(first)} vs {', '.join(second)}"
            if negated_a != negated_b:
                return "one negates the other"
    return None


def find_conflicts(sources: Sequence[RetrievedSource], vectors: Vectors, *, similarity: float) -> list[Conflict]:
    conflicts: list[Conflict] = []
    if len(sources) < 2:
        return conflicts
    mutual = np.asarray(vectors @ vectors.T)
    parsed: dict[int, list[_Statement]] = {}  # each source read once, and only if compared

    def statements(i: int) -> list[_Statement]:
        if i not in parsed:
            parsed[i] = _statements(sources[i].text)
        return parsed[i]

    for i in range(len(sources)):
        for j in range(i + 1, len(sources)):
            a, b = sources[i], sources[j]
            if a.doc_type != b.doc_type or mutual[i, j] < similarity:
                continue
            reason = _clash(statements(i), statements(j))
            if reason is not None:
                conflicts.append(Conflict(first=a.id, second=b.id, reason=reason))
    return conflicts
