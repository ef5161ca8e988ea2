"""Convergence and LLM endorsement (seed 000 F-04 Q3; GLADyS CONFIDENCE_BOOTSTRAPPING).

After an LLM-path answer, the answer is compared (cosine of sentence embeddings) with the
actions of the candidates the LLM was *shown* — GLADyS compared all candidates, including
ones the LLM never saw (ORIGINS §1.8 bug 6). The closest one is recorded as
``metadata.convergence``. Seed 000 F-04: convergence must not boost confidence, so by default
(``executive.endorsement_weight`` 0) that is all. A deployment that wants GLADyS's
bootstrapping sets a weight: at similarity ≥ 0.75 the heuristic then gets a positive update
of magnitude weight × similarity, source ``llm_endorsement``. Below the threshold nothing
changes: an LLM that says something else is not evidence that the heuristic is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import ConfigDict

from phronesis.embeddings.types import Embedder
from phronesis.schema import Schema

__all__ = ["Convergence", "detect_convergence", "endorsement_magnitude"]

ENDORSEMENT_SOURCE = "llm_endorsement"


class Convergence(Schema):
    model_config = ConfigDict(frozen=True)

    converged_heuristic_id: str
    similarity: float


async def detect_convergence(
    embedder: Embedder, response_text: str, actions: Sequence[tuple[str, str]]
) -> Convergence | None:
    """The shown candidate (id, action text) whose action is closest to the LLM's answer."""
    if not actions or not response_text.strip():
        return None
    # Embedders return unit-length rows (the seam's contract), so the dot product is the cosine.
    vectors = await embedder.embed([response_text, *[text for _, text in actions]])
    similarities = vectors[1:] @ vectors[0]
    best = int(np.argmax(similarities))
    return Convergence(converged_heuristic_id=actions[best][0], similarity=float(similarities[best]))


def endorsement_magnitude(convergence: Convergence, *, threshold: float, weight: float) -> float | None:
    """GLADyS bootstrapping: ``weight × similarity`` at or above ``threshold``; never a penalty, and
    None (no update at all) with weight 0, seed 000 F-04's default."""
    if weight <= 0.0 or convergence.similarity < threshold:
        return None
    return weight * convergence.similarity
