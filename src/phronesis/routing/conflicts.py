"""Do two retrieved sources contradict each other?

The original flags a conflict when two pricing or policy documents' *scores* differ by
more than 0.3 (ORIGINS §2) — that says nothing about their content. Here two sources of
one doc type that are about the same thing (embedding similarity ≥ a threshold) conflict
when they state different figures (prices, percentages, durations) or when one negates
what the other asserts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from phronesis.embeddings.types import Vectors
from phronesis.routing.retrieval import Conflict, RetrievedSource

__all__ = ["find_conflicts", "figures"]

_FIGURE = re.compile(r"[$€£]?\d+(?:[.,]\d+)?\s*(?:%|percent|days?|hours?|months?|years?|users?|seats?|k)?", re.I)
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|can't|don't|doesn't|won't|isn't)\b", re.I)


def figures(text: str) -> set[str]:
    """Normalised figures in ``text``: ``$49``, ``30 days``, ``15%``."""
    return {re.sub(r"\s+", " ", match.group(0).strip().lower()) for match in _FIGURE.finditer(text)}


def find_conflicts(sources: Sequence[RetrievedSource], vectors: Vectors, *, similarity: float) -> list[Conflict]:
    conflicts: list[Conflict] = []
    if len(sources) < 2:
        return conflicts
    mutual = np.asarray(vectors @ vectors.T)
    for i in range(len(sources)):
        for j in range(i + 1, len(sources)):
            a, b = sources[i], sources[j]
            if a.doc_type != b.doc_type or mutual[i, j] < similarity:
                continue
            fa, fb = figures(a.text), figures(b.text)
            if fa and fb and fa != fb:
                reason = f"different figures: {', '.join(sorted(fa - fb)[:3])} vs {', '.join(sorted(fb - fa)[:3])}"
                conflicts.append(Conflict(first=a.id, second=b.id, reason=reason))
            elif bool(_NEGATION.search(a.text)) != bool(_NEGATION.search(b.text)):
                conflicts.append(Conflict(first=a.id, second=b.id, reason="one negates the other"))
    return conflicts
