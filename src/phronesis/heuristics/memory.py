"""Heuristic memory: the repository (store of record) plus the vector index plus the embedder.

Writes go to the database first and then to the index, so a failed write never leaves
the index ahead of the data. The index is rebuilt from the database on start (rows embedded
with another model, or not at all, are re-embedded then) and follows the database's change
feed, so a heuristic added, changed or deleted by another process (the CLI, another API
worker) is matched here too (``storage.followed_index``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.embeddings.types import Embedder, Vectors, embed_in_chunks
from phronesis.exceptions import InvalidInputError
from phronesis.heuristics.models import (
    ConfidenceUpdate,
    Heuristic,
    HeuristicCreate,
    HeuristicMatch,
    HeuristicUpdate,
)
from phronesis.heuristics.ranking import rank_similarity_dominant
from phronesis.heuristics.repository import HeuristicRepository
from phronesis.settings import HeuristicSettings
from phronesis.storage.database import Database
from phronesis.storage.followed_index import CollectionIndex, FollowedIndex, SnapshotPolicy
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.pgvector import PgVectorCollection, PgVectorColumn

__all__ = ["HeuristicMemory"]

OVERSAMPLE = 4
"""Fetch this many times k from the index so the confidence filter still leaves k."""


class HeuristicMemory:
    def __init__(
        self,
        repository: HeuristicRepository,
        embedder: Embedder,
        index: PartitionedIndex,
        settings: HeuristicSettings,
        *,
        follow_interval_s: float = 0.0,
        snapshot: SnapshotPolicy | None = None,
    ) -> None:
        self.repository = repository
        self.embedder = embedder
        self.index = index
        self.settings = settings
        self.vectors: CollectionIndex = FollowedIndex(
            index, repository, repository.changes, embedder, interval_s=follow_interval_s, snapshot=snapshot
        )
        """Where conditions are searched: in this process, following the database, or in
        PostgreSQL (``use_pgvector``)."""

    def use_pgvector(self, database: Database) -> None:
        """Search conditions with pgvector inside PostgreSQL (``index.backend``); nothing held here."""
        self.vectors = PgVectorCollection(database, PgVectorColumn.of("heuristics"), partition="domain")

    async def _embed(self, texts: Sequence[str]) -> Vectors:
        return await embed_in_chunks(self.embedder, texts)

    async def load_index(self, progress: Callable[[int], None] | None = None) -> int:
        """Load the index (its snapshot and the changes after it, or the table); how many heuristics it holds."""
        return await self.vectors.load(progress)

    async def add(self, tenant: str, data: HeuristicCreate) -> Heuristic:
        return (await self.add_many(tenant, [data]))[0]

    async def add_many(
        self,
        tenant: str,
        items: Sequence[HeuristicCreate],
        *,
        connection: AsyncConnection | None = None,
        vectors: Vectors | None = None,
        upsert: bool = False,
    ) -> list[Heuristic]:
        """Embed and store all of ``items`` atomically, then index them.

        With ``connection`` the rows join the caller's transaction and reach the index only
        when it commits, so a rolled-back transaction leaves no trace in the index either.
        A caller inside a transaction passes ``vectors`` (the conditions' embeddings, computed
        before it began) so that no model call runs while the transaction holds the database.
        """
        if not items:
            return []
        if vectors is None:
            vectors = await self._embed([item.condition_text for item in items])
        elif len(vectors) != len(items):
            raise ValueError("one vector per item is needed")
        created = await self.repository.create_many(
            tenant, items, vectors, self.embedder.model_name, connection=connection, upsert=upsert
        )

        def index_created(*_: object) -> None:
            by_domain: dict[str, list[int]] = {}
            for i, h in enumerate(created):
                by_domain.setdefault(h.domain, []).append(i)
            for domain, rows in by_domain.items():
                self.vectors.applied(tenant, domain, [created[i].id for i in rows], vectors[rows])

        if connection is None:
            index_created()
        else:
            event.listen(connection.sync_connection, "commit", index_created, once=True)
        return created

    async def update(self, tenant: str, heuristic_id: str, patch: HeuristicUpdate) -> Heuristic:
        vector: Vectors | None = None
        if patch.condition_text is not None:
            vector = await self._embed([patch.condition_text])
        before, after = await self.repository.update(
            tenant,
            heuristic_id,
            patch,
            embedding=None if vector is None else vector[0],
            embedding_model=self.embedder.model_name if vector is not None else None,
        )
        if vector is not None or before.domain != after.domain:
            if vector is None:
                vector = await self._embed([after.condition_text])
            self.vectors.applied(tenant, after.domain, [heuristic_id], vector)
        return after

    async def delete(self, tenant: str, heuristic_id: str) -> Heuristic:
        deleted = await self.repository.delete(tenant, heuristic_id)
        self.vectors.removed(tenant, heuristic_id)
        return deleted

    async def update_confidence(
        self, tenant: str, heuristic_id: str, *, positive: bool, magnitude: float | None, source: str
    ) -> ConfidenceUpdate:
        return await self.repository.update_confidence(
            tenant, heuristic_id, positive=positive, magnitude=magnitude, source=source
        )

    async def match(
        self,
        tenant: str,
        text: str,
        *,
        source: str | None = None,
        k: int | None = None,
        min_similarity: float | None = None,
        min_confidence: float = 0.0,
        include_general: bool = False,
    ) -> list[HeuristicMatch]:
        """The best ``k`` heuristics whose condition matches ``text`` (seed 000 candidates).

        ``source`` filters hard on the heuristic's domain; ``include_general`` also admits
        heuristics with no domain, which apply to every source.
        """
        if not text.strip():
            raise InvalidInputError("text", "must not be blank")
        if len(text) > self.settings.max_text_chars:
            raise InvalidInputError("text", f"longer than {self.settings.max_text_chars} characters")
        vector = (await self.embedder.embed([text]))[0]
        return await self.match_vector(
            tenant,
            vector,
            source=source,
            k=k,
            min_similarity=min_similarity,
            min_confidence=min_confidence,
            include_general=include_general,
        )

    async def match_vector(
        self,
        tenant: str,
        vector: Vectors,
        *,
        source: str | None = None,
        k: int | None = None,
        min_similarity: float | None = None,
        min_confidence: float = 0.0,
        include_general: bool = False,
    ) -> list[HeuristicMatch]:
        k = k or self.settings.top_k
        domains = None if source is None else ([source, ""] if include_general else [source])
        floor = self.settings.min_similarity if min_similarity is None else min_similarity
        hits = [
            (key, score)
            for _, key, score in await self.vectors.search(tenant, vector, k * OVERSAMPLE, partitions=domains)
            if score >= floor
        ]
        if not hits:
            return []
        rows = await self.repository.get_many(tenant, [key for key, _ in hits])
        matches = [
            HeuristicMatch(heuristic=rows[key], similarity=score, score=score * rows[key].confidence)
            for key, score in hits
            if key in rows and rows[key].confidence >= min_confidence
        ]
        ranked = rank_similarity_dominant(
            matches,
            similarity=lambda m: m.similarity,
            confidence=lambda m: m.heuristic.confidence,
            epsilon=self.settings.tie_epsilon,
        )
        return ranked[:k]
