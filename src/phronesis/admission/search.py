"""Retrieval over active runs (seed 003: superseded runs are excluded; they are not in the index).

Within a merge group the canonical run comes first, at the group's best position, so a
caller reading the top hit of a group reads its best version; ``collapse`` keeps only
that one per group.
"""

from __future__ import annotations

from phronesis.admission.models import GroupView, Run, SearchHit
from phronesis.admission.run_repository import RunRepository
from phronesis.admission.run_vectors import RunVectors
from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import InvalidInputError

__all__ = ["RunSearch"]

OVERSAMPLE = 3
MAX_QUERY_CHARS = 4000


class RunSearch:
    def __init__(self, runs: RunRepository, index: RunVectors, embedder: Embedder) -> None:
        self._runs = runs
        self._index = index
        self._embedder = embedder

    async def search(
        self,
        tenant: str,
        query: str,
        *,
        agent_id: str,
        user_id: str,
        k: int,
        min_similarity: float = 0.0,
        collapse: bool = False,
    ) -> list[SearchHit]:
        if not query.strip():
            raise InvalidInputError("q", "must not be blank")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidInputError("q", f"longer than {MAX_QUERY_CHARS} characters")
        await self._index.sync()
        vector = (await self._embedder.embed([query]))[0]
        found = [
            (key, score)
            for key, score in (await self._index.find_many(tenant, agent_id, user_id, vector, k * OVERSAMPLE))[0]
            if score >= min_similarity
        ]
        stored = await self._runs.get_many(tenant, [key for key, _ in found])
        live = [(stored[key], score) for key, score in found if key in stored and stored[key].status == "active"]
        groups = await self._runs.groups(tenant, [r.merge_group for r, _ in live if r.merge_group])
        live += await self._canonicals_not_found(tenant, vector, live, groups)
        best: dict[str, float] = {}
        for run, score in live:
            slot = run.merge_group or run.id
            best[slot] = max(best.get(slot, -1.0), score)
        hits = [
            SearchHit(
                run=run,
                similarity=score,
                best_similarity=best[run.merge_group or run.id],
                group=groups.get(run.merge_group or ""),
            )
            for run, score in live
            if score >= min_similarity or (collapse and run.canonical)
        ]
        if collapse:  # one hit per group, its canonical run, at the group's place
            kept: dict[str, SearchHit] = {}
            for hit in sorted(hits, key=lambda h: (not h.run.canonical, -h.similarity)):
                kept.setdefault(hit.run.merge_group or hit.run.id, hit)
            hits = list(kept.values())
            return sorted(hits, key=lambda h: (-h.best_similarity, -h.similarity, h.run.id))[:k]
        return sorted(hits, key=lambda h: (-h.similarity, h.run.id))[:k]

    async def _canonicals_not_found(
        self, tenant: str, vector: Vectors, live: list[tuple[Run, float]], groups: dict[str, GroupView]
    ) -> list[tuple[Run, float]]:
        """The canonical runs of groups found only through other members, with their similarity:
        the group's slot shows its canonical run first, and ``collapse`` shows only that one (never
        a non-canonical member)."""
        found = {run.id for run, _ in live}
        missing = [
            g.canonical_run_id for g in groups.values() if g.canonical_run_id and g.canonical_run_id not in found
        ]
        if not missing:
            return []
        stored = await self._runs.get_many(tenant, missing)
        vectors = await self._runs.embeddings(tenant, missing)
        return [
            (stored[key], float(vectors[key] @ vector))
            for key in missing
            if key in stored and key in vectors and stored[key].status == "active"
        ]
