"""Similarity-dominant ranking with confidence as the tiebreak (seed 000, Selection Strategy).

"A 0.3-confidence heuristic with 0.9 context match beats a 0.7-confidence with 0.6
match": similarity orders the list; only when two similarities are within ``epsilon``
of the group's best does confidence decide between them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["rank_similarity_dominant"]

T = TypeVar("T")


def rank_similarity_dominant(
    items: Sequence[T],
    *,
    similarity: Callable[[T], float],
    confidence: Callable[[T], float],
    epsilon: float,
) -> list[T]:
    """Items grouped by near-equal similarity (within ``epsilon`` of the group head), best first."""
    by_similarity = sorted(items, key=similarity, reverse=True)
    ranked: list[T] = []
    group: list[T] = []
    for item in by_similarity:
        if group and similarity(group[0]) - similarity(item) > epsilon:
            ranked.extend(sorted(group, key=lambda x: (confidence(x), similarity(x)), reverse=True))
            group = []
        group.append(item)
    ranked.extend(sorted(group, key=lambda x: (confidence(x), similarity(x)), reverse=True))
    return ranked
