"""The runs a batch has planned to store so far, so that later runs of the batch meet them.

A batch of 1,000 runs in one scope compared each run with every earlier one in Python:
half a million comparisons, most of a batch's time (measured: 10 of 14 s). Here each scope's
pending vectors sit in one growing matrix, so a run meets all of them in one product.
"""

from __future__ import annotations

import numpy as np

from phronesis.admission.judgement import Candidate
from phronesis.embeddings.types import Vectors

__all__ = ["PendingRuns"]


class _Scope:
    def __init__(self, dimension: int) -> None:
        self.candidates: list[Candidate] = []
        self.vectors = np.zeros((16, dimension), dtype=np.float32)

    def add(self, candidate: Candidate, vector: Vectors) -> None:
        size = len(self.candidates)
        if size == len(self.vectors):
            grown = np.zeros((2 * size, self.vectors.shape[1]), dtype=np.float32)
            grown[:size] = self.vectors
            self.vectors = grown
        self.vectors[size] = vector
        self.candidates.append(candidate)


class PendingRuns:
    def __init__(self) -> None:
        self._scopes: dict[tuple[str, str], _Scope] = {}

    def add(self, scope: tuple[str, str], candidate: Candidate, vector: Vectors) -> None:
        flat = np.asarray(vector, dtype=np.float32).reshape(-1)
        self._scopes.setdefault(scope, _Scope(len(flat))).add(candidate, flat)

    def nearest(
        self, scope: tuple[str, str], vector: Vectors, k: int, *, skip: set[str]
    ) -> list[tuple[Candidate, float]]:
        """The ``k`` most similar pending runs of ``scope`` (with their similarity), except ``skip``."""
        pending = self._scopes.get(scope)
        if pending is None or k <= 0:
            return []
        size = len(pending.candidates)
        similarities = pending.vectors[:size] @ np.asarray(vector, dtype=np.float32).reshape(-1)
        out: list[tuple[Candidate, float]] = []
        for i in np.argsort(-similarities, kind="stable"):
            candidate = pending.candidates[i]
            if candidate.run_id not in skip:
                out.append((candidate, float(similarities[i])))
                if len(out) == k:
                    break
        return out
