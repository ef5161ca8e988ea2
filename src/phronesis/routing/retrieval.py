"""The retrieval seam: RETRIEVE asks a ``Retriever``; the local one is built in, others plug in.

Seed 002: "RAG is NOT always on" — the routing service calls a retriever only when the
decision asks for it. A retriever raises ``RetrievalError`` when it cannot answer; the
service then takes the seed's fallback (REASON_ONLY × 0.7, or escalate a critical query).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from pydantic import Field

from phronesis.exceptions import PhronesisError
from phronesis.schema import Schema

__all__ = ["Conflict", "RetrievalError", "RetrievalResult", "RetrievedSource", "Retriever", "Superseded"]


class RetrievalError(PhronesisError):
    """The knowledge base could not be searched (not: it had nothing relevant)."""


class RetrievedSource(Schema):
    id: str
    doc_type: str
    title: str = ""
    text: str
    passage: str | None = None
    """The sentence that matched best (``routing.passages``); None when the whole document did."""
    similarity: float
    recency: float
    quality: float
    score: float
    """Seed 002 rerank: 0.6·similarity + 0.2·recency + 0.2·quality (weights configurable)."""
    published_at: datetime | None = None
    """When the document was last true (None: undated)."""
    superseded_by: str | None = None
    """The id of the newer or current document of its type that replaces this one, when this one
    is kept only because nothing replaces it in the search (then the answer says it may be out of date)."""

    def summary(self) -> dict[str, Any]:
        found = {"id": self.id, "doc_type": self.doc_type, "title": self.title, "score": round(self.score, 4)}
        if self.published_at is not None:
            found["published_at"] = self.published_at.date().isoformat()
        if self.superseded_by is not None:
            found["superseded_by"] = self.superseded_by
        return found | ({"passage": self.passage} if self.passage else {})


class Conflict(Schema):
    first: str
    second: str
    reason: str


class Superseded(Schema):
    """A source set aside because a newer or current one of its type answers instead."""

    id: str
    by: str
    why: str


class RetrievalResult(Schema):
    sources: list[RetrievedSource] = Field(default_factory=list)
    """Kept sources (relevant enough), best first."""
    considered: int = 0
    conflicts: list[Conflict] = Field(default_factory=list)
    superseded: list[Superseded] = Field(default_factory=list)
    """Sources set aside for a newer or current one of the same type: not conflicts."""

    @property
    def conflict_detected(self) -> bool:
        return bool(self.conflicts)


@runtime_checkable
class Retriever(Protocol):
    async def retrieve(self, tenant: str, query: str, *, top_k: int, min_score: float | None = None) -> RetrievalResult:
        """The ``top_k`` best sources scoring at least ``min_score`` (None: the configured floor)."""
        ...
