"""Heuristic memory: storage, matching, Beta confidence and per-heuristic constraints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from phronesis.lazy import exports

if TYPE_CHECKING:
    from phronesis.heuristics.confidence import BetaConfidence
    from phronesis.heuristics.memory import HeuristicMemory
    from phronesis.heuristics.models import (
        ConfidenceUpdate,
        Heuristic,
        HeuristicCreate,
        HeuristicMatch,
        HeuristicUpdate,
    )
    from phronesis.heuristics.ranking import rank_similarity_dominant
    from phronesis.heuristics.repository import HeuristicRepository

__all__ = [
    "BetaConfidence",
    "ConfidenceUpdate",
    "Heuristic",
    "HeuristicCreate",
    "HeuristicMatch",
    "HeuristicMemory",
    "HeuristicRepository",
    "HeuristicUpdate",
    "rank_similarity_dominant",
]

__getattr__ = exports(
    __name__,
    {
        "BetaConfidence": "phronesis.heuristics.confidence",
        "ConfidenceUpdate": "phronesis.heuristics.models",
        "Heuristic": "phronesis.heuristics.models",
        "HeuristicCreate": "phronesis.heuristics.models",
        "HeuristicMatch": "phronesis.heuristics.models",
        "HeuristicMemory": "phronesis.heuristics.memory",
        "HeuristicRepository": "phronesis.heuristics.repository",
        "HeuristicUpdate": "phronesis.heuristics.models",
        "rank_similarity_dominant": "phronesis.heuristics.ranking",
    },
)
