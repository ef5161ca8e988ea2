"""The built-in retriever: the tenant's documents, reranked the seed's way.

Seed 002 / ORIGINS §2: top_k 8; score = 0.6·cosine + 0.2·recency + 0.2·doc-type quality,
recency ``exp(−days/90)`` (0.7 when undated), quality sop .95 / policy .9 / faq .8 /
general .7 (an unknown type counts as general); sources below 0.6 are dropped.

A document's age ranks it, it never hides it. A year-old security page scores
0.6·0.67 + 0.2·0.02 + 0.2·0.9 = 0.59 … and with its real recency would need cosine ≥ 0.53 where an
undated one needs 0.40, so "Is my data encrypted?" would find nothing. The floor therefore reads an
old document as if it were undated (recency at least ``default_recency``); the ranking keeps its real recency, so
between two relevant sources the fresher leads. And a document ``superseded`` — or older than
another of its type that contradicts it — is set aside for the current one instead of making
the answer a conflict (a 2022 price sheet beside the current one would escalate every pricing question).
"""

from __future__ import annotations

import math

import numpy as np

from phronesis.clock import Clock
from phronesis.embeddings.types import Embedder
from phronesis.exceptions import EmbeddingError, StorageError
from phronesis.routing.conflicts import find_conflicts
from phronesis.routing.documents import Document, DocumentRepository
from phronesis.routing.retrieval import Conflict, RetrievalError, RetrievalResult, RetrievedSource, Superseded
from phronesis.routing.settings import RoutingSettings

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
            # rerank a wider shortlist
            hits = await self._documents.search(tenant, query_vector, top_k * 3, query=query)
        except (StorageError, EmbeddingError) as exc:
            raise RetrievalError(str(exc)) from exc
        if not hits:
            return RetrievalResult()
        s = self._settings
        scored: list[tuple[RetrievedSource, int]] = []
        relevance: dict[str, float] = {}
        status: dict[str, str] = {}
        for i, hit in enumerate(hits):
            document = hit.document
            recency, quality = self._recency(document), self._quality(document.doc_type)
            sim = hit.similarity
            weighted = s.rerank_similarity_weight * sim + s.rerank_quality_weight * quality
            score = weighted + s.rerank_recency_weight * recency
            relevance[document.id] = weighted + s.rerank_recency_weight * max(recency, s.default_recency)
            status[document.id] = document.status
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
                published_at=document.published_at,
            )
            scored.append((source, i))
        scored.sort(key=lambda pair: -pair[0].score)
        floor = s.retrieval_min_score if min_score is None else min_score
        relevant = [
            (src, i) for src, i in scored if relevance[src.id] >= floor and src.similarity >= s.retrieval_min_similarity
        ]
        relevant, superseded = _current(relevant, status)
        kept = relevant[:top_k]
        sources = [src for src, _ in kept]
        conflicts = (
            find_conflicts(sources, np.stack([hits[i].vector for _, i in kept]), similarity=s.conflict_similarity)
            if kept
            else []
        )
        conflicts, newer = _newer_stands(sources, conflicts)
        superseded += newer
        if newer:
            gone = {x.id for x in newer}
            sources = [src for src in sources if src.id not in gone]
        return RetrievalResult(sources=sources, considered=len(scored), conflicts=conflicts, superseded=superseded)


def _current(
    relevant: list[tuple[RetrievedSource, int]], status: dict[str, str]
) -> tuple[list[tuple[RetrievedSource, int]], list[Superseded]]:
    """A ``superseded`` document is set aside when a current one of its type is relevant too; alone,
    it stays, marked (the answer says it may be out of date) rather than hidden."""
    current = {src.doc_type: src.id for src, _ in relevant if status.get(src.id, "current") == "current"}
    kept: list[tuple[RetrievedSource, int]] = []
    aside: list[Superseded] = []
    for src, i in relevant:
        if status.get(src.id, "current") != "superseded":
            kept.append((src, i))
        elif src.doc_type in current:
            aside.append(Superseded(id=src.id, by=current[src.doc_type], why="marked superseded"))
        else:
            kept.append((src.model_copy(update={"superseded_by": "(none found)"}), i))
    return kept, aside


def _newer_stands(sources: list[RetrievedSource], conflicts: list[Conflict]) -> tuple[list[Conflict], list[Superseded]]:
    """Two dated sources of one type that contradict each other: the newer is the answer and the
    older is set aside (a price list replaced by the next). A conflict between undated sources, or
    sources of one date, stands, and says which sources and dates disagree."""
    by_id = {src.id: src for src in sources}
    standing: list[Conflict] = []
    aside: dict[str, Superseded] = {}
    for conflict in conflicts:
        a, b = by_id[conflict.first], by_id[conflict.second]
        if a.published_at is not None and b.published_at is not None and a.published_at != b.published_at:
            old, new = (a, b) if a.published_at < b.published_at else (b, a)
            why = f"{conflict.reason}; {_dated(new)} is newer than {_dated(old)}"
            aside.setdefault(old.id, Superseded(id=old.id, by=new.id, why=why))
            continue
        standing.append(conflict.model_copy(update={"reason": f"{conflict.reason} ({_dated(a)} vs {_dated(b)})"}))
    standing = [c for c in standing if c.first not in aside and c.second not in aside]
    return standing, list(aside.values())


def _dated(source: RetrievedSource) -> str:
    name = source.title or source.id
    return f"{name}, {source.published_at.date()}" if source.published_at is not None else f"{name}, undated"
