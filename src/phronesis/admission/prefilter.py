"""Stage 1, the deterministic pre-filter: clear-cut cases never reach a judge (seed 003).

Seed rules: no similar runs → ADD; best similarity < 0.7 → ADD; > 0.95 with the same
structure → flagged likely MERGE/NOT and passed on. Ours adds the exact-duplicate rule
in front (Mem0 v3's hash dedup, Graphiti's exact fast path): the same run again is NOT
without any model call.

One deviation: a stored run of the *same task* goes to the judge whatever its similarity. A
failed run's trace ("Vault returned permission denied") and the success's ("Generated a new key
pair, updated the secrets manager, restarted the pods") embed at 0.67: the seed's < 0.7 rule
would ADD the success beside the failure, both active, and search would return the failure
first. The task is the stronger evidence: the judge's REPLACE and MERGE are
structural (outcome, references), not similarity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from phronesis.admission.judgement import Candidate, Incoming, Verdict, is_duplicate, same_structure

__all__ = ["Screening", "prefilter"]


@dataclass(frozen=True, slots=True)
class Screening:
    """What stage 1 hands the judge: the candidates at or above the low threshold, best first."""

    candidates: list[Candidate]
    likely_duplicate: bool


def prefilter(
    run: Incoming,
    nearest: Sequence[Candidate],
    *,
    exact_duplicate_of: str | None,
    low_similarity: float,
    duplicate_threshold: float,
) -> Verdict | Screening:
    if exact_duplicate_of is not None:
        return Verdict(
            "NOT",
            exact_duplicate_of,
            f"The same run (normalised content hash) is already stored as {exact_duplicate_of}",
            "prefilter",
            "exact_duplicate",
        )
    if not nearest:
        return Verdict("ADD", None, "No similar runs found in memory", "prefilter", "no_similar_runs")
    best = nearest[0]
    candidates = [c for c in nearest if c.similarity >= low_similarity or c.same_task]
    if not candidates:
        return Verdict(
            "ADD",
            None,
            f"Similarity {best.similarity:.3f} below threshold {low_similarity:.2f}",
            "prefilter",
            "below_low_similarity",
        )
    first = candidates[0]
    return Screening(candidates, is_duplicate(first, duplicate_threshold) and same_structure(run, first))
