"""The built-in retriever: the tenant's documents, reranked the seed's way.

Seed 002 / ORIGINS §2: top_k 8; score = 0.6·cosine + 0.2·recency + 0.2·doc-type quality,
recency ``exp(−days/90)`` (0.7 when undated), quality sop .95 / policy .9 / faq .8 /
general .7 (an unknown type counts as general); sources below 0.6 are dropped.
"""

from __future__ import annotations

import math

import numpy as np

from phronesis.clock import Clock
from phronesis.embeddings.types import Embedder
from phronesis.exceptions import EmbeddingError, StorageError
from phronesis.routing.conflicts import find_conflicts
from phronesis.routing.documents import Document, DocumentRepository
from phronesis.routing.retrieval import RetrievalError, RetrievalResult, RetrievedSource
from phronesis.settings import RoutingSettings

__all__ = ["LocalRetriever"]


class LocalRetriever:
    def __init__(
        self, documents: DocumentRepository, embedder: Embedder, settings: RoutingSettings, clock: Clock
    ) -> None:
        self._documents = documents
        self._embedder = embedder
        self._settings = settings
        self._clock = clock

    def _recency(self, document: Document) -> float:
        if document.published_at is None:
            return self._settings.default_recency
        days = max(0.0, (self._clock.now() - document.published_at).total_seconds() / 86400)
        return math.exp(-days / self._settings.recency_days)

    def _quality(self, doc_type: str) -> float:
        table = self._settings.doc_type_quality
        return table.get(doc_type, table.get("general", 0.7))

    async def retrieve(self, tenant: str, query: str, *, top_k: int, min_score: float | None = None) -> RetrievalResult:
        try:
            query_vector = (await self._embedder.embed([query]))[0]
            hits = await self._documents.search(tenant, query_vector, top_k * 3)  # rerank a wider shortlist
        except (StorageError, EmbeddingError) as exc:
            raise RetrievalError(str(exc)) from exc
        if not hits:
            return RetrievalResult()
        s = self._settings
        scored: list[tuple[RetrievedSource, int]] = []
        for i, hit in enumerate(hits):
            document = hit.document
            recency, quality = self._recency(document), self._quality(document.doc_type)
            sim = hit.similarity
            score = (
                s.rerank_similarity_weight * sim + s.rerank_recency_weight * recency + s.rerank_quality_weight * quality
            )
            source = RetrievedSource(
                id=document.id,
                doc_type=document.doc_type,
                title=document.title,
                text=document.text,
                passage=hit.passage,
                similarity=sim,
                recency=recency,
                quality=quality,
                score=score,
            )
            scored.append((source, i))
        scored.sort(key=lambda pair: -pair[0].score)
        floor = s.retrieval_min_score if min_score is None else min_score
        kept = [
            (src, i) for src, i in scored[:top_k] if src.score >= floor and src.similarity >= s.retrieval_min_similarity
        ]
        sources = [src for src, _ in kept]
        conflicts = (
            find_conflicts(sources, np.stack([hits[i].vector for _, i in kept]), similarity=s.conflict_similarity)
            if kept
            else []
        )
        return RetrievalResult(sources=sources, considered=len(scored), conflicts=conflicts)
