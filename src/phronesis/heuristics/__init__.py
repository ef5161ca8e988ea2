"""Heuristic memory: storage, matching, Beta confidence and per-heuristic constraints."""

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
