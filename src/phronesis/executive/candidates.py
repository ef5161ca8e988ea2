"""Candidates from heuristic memory (seed 000: "best match first, then additional candidates").

Top-k heuristics whose condition matches the event text at similarity ≥ 0.7, filtered
hard to the event's source (plus heuristics with no domain, which apply everywhere),
ranked similarity-dominant with confidence as the tiebreak. k and the similarity floor are
heuristic memory's own (``heuristics.top_k``, ``heuristics.min_similarity`` alias the seed's
``SALIENCE_HEURISTIC_MIN_SIMILARITY``): one setting per concept, the same for a match request
and for the executive's candidates.
"""

from __future__ import annotations

from phronesis.executive.types import HeuristicCandidate
from phronesis.heuristics.memory import HeuristicMemory, SetAside

__all__ = ["candidates_from_memory"]


async def candidates_from_memory(
    memory: HeuristicMemory,
    tenant: str,
    text: str,
    *,
    source: str,
) -> tuple[list[HeuristicCandidate], list[SetAside]]:
    """The candidates, best first, and the near heuristics memory's scope judgement set aside (what
    the decision's record says of a heuristic the event was near and that did not fire)."""
    judged = await memory.match_text_judged(tenant, text, source=source or None, include_general=True)
    matches = judged.matches
    return [
        HeuristicCandidate(
            heuristic_id=match.heuristic.id,
            condition_text=match.heuristic.condition_text,
            suggested_action=match.heuristic.action_text,
            confidence=match.heuristic.confidence,
            similarity=max(-1.0, min(1.0, match.similarity)),
            alpha=match.heuristic.alpha,
            beta=match.heuristic.beta,
        )
        for match in matches
    ], judged.set_aside
