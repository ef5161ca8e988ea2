"""Candidates from heuristic memory (seed 000: "best match first, then additional candidates").

Top-k heuristics whose condition matches the event text at similarity ≥ 0.7, filtered
hard to the event's source (plus heuristics with no domain, which apply everywhere),
ranked similarity-dominant with confidence as the tiebreak.
"""

from __future__ import annotations

from phronesis.executive.types import HeuristicCandidate
from phronesis.heuristics.memory import HeuristicMemory

__all__ = ["candidates_from_memory"]


async def candidates_from_memory(
    memory: HeuristicMemory,
    tenant: str,
    text: str,
    *,
    source: str,
    limit: int,
    min_similarity: float,
) -> list[HeuristicCandidate]:
    matches = await memory.match(
        tenant,
        text,
        source=source or None,
        k=limit,
        min_similarity=min_similarity,
        include_general=True,
    )
    return [
        HeuristicCandidate(
            heuristic_id=match.heuristic.id,
            condition_text=match.heuristic.condition_text,
            suggested_action=match.heuristic.action_text,
            confidence=match.heuristic.confidence,
            similarity=max(-1.0, min(1.0, match.similarity)),
        )
        for match in matches
    ]
