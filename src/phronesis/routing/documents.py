"""The knowledge base the local retriever searches: documents with a type, a date and an embedding."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, func, select

from phronesis.clock import Clock
from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import ConflictError, InvalidInputError
from phronesis.storage.database import Database
from phronesis.storage.tables import routing_documents

__all__ = ["Document", "DocumentIn", "DocumentMatrix", "DocumentRepository"]


class DocumentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._:@-]+$")
    doc_type: str = Field(default="general", min_length=1, max_length=32, pattern=r"^[a-z0-9_-]+$")
    title: str = Field(default="", max_length=300)
    text: str = Field(min_length=1, max_length=20000)
    published_at: datetime | None = None
    """When the content was last true; recency decays from here (None: the default recency)."""
    attributes: dict[str, Any] = Field(default_factory=dict)


class Document(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    doc_type: str
    title: str
    text: str
    published_at: datetime | None
    created_at: datetime
    attributes: dict[str, Any]


@dataclass(frozen=True, slots=True)
class DocumentMatrix:
    """One tenant's documents as arrays, for brute-force search (enough at knowledge-base sizes)."""

    documents: list[Document]
    vectors: Vectors
    stamp: tuple[int, datetime | None]


def _document(values: Mapping[str, Any]) -> Document:
    """A stored row (or the values just inserted) without the columns callers never see."""
    hidden = ("tenant", "embedding", "embedding_model")
    return Document.model_validate({k: v for k, v in values.items() if k not in hidden})


class DocumentRepository:
    def __init__(self, database: Database, embedder: Embedder, clock: Clock) -> None:
        self._db = database
        self._embedder = embedder
        self._clock = clock
        self._cache: dict[str, DocumentMatrix] = {}

    async def add(self, tenant: str, documents: Sequence[DocumentIn]) -> list[Document]:
        """Embed and store ``documents`` in one transaction; an existing id is a conflict, nothing stored."""
        if not documents:
            raise InvalidInputError("documents", "at least one document is required")
        ids = [d.id or uuid.uuid4().hex for d in documents]
        if len(set(ids)) != len(ids):
            raise ConflictError("id", "the same id appears twice in one request")
        vectors = await self._embedder.embed([f"{d.title}\n{d.text}".strip() for d in documents])
        now = self._clock.now()
        rows = [
            d.model_dump(exclude={"id"})
            | {
                "tenant": tenant,
                "id": doc_id,
                "embedding": vector,
                "embedding_model": self._embedder.model_name,
                "created_at": now,
            }
            for d, doc_id, vector in zip(documents, ids, vectors, strict=True)
        ]
        async with self._db.transaction() as conn:
            taken = (
                (
                    await conn.execute(
                        select(routing_documents.c.id).where(
                            routing_documents.c.tenant == tenant, routing_documents.c.id.in_(ids)
                        )
                    )
                )
                .scalars()
                .all()
            )
            if taken:
                raise ConflictError("id", f"document {taken[0]!r} already exists")
            await conn.execute(routing_documents.insert(), rows)
        return [_document(r) for r in rows]

    async def list(self, tenant: str, *, limit: int = 100, offset: int = 0) -> list[Document]:
        c = routing_documents.c
        async with self._db.engine.connect() as conn:
            query = select(routing_documents).where(c.tenant == tenant).order_by(c.created_at, c.id)
            rows = await conn.execute(query.limit(limit).offset(offset))
            return [_document(dict(r._mapping)) for r in rows]

    async def delete(self, tenant: str, document_id: str) -> bool:
        async with self._db.transaction() as conn:
            result = await conn.execute(
                delete(routing_documents).where(
                    routing_documents.c.tenant == tenant, routing_documents.c.id == document_id
                )
            )
        return bool(result.rowcount)

    async def matrix(self, tenant: str) -> DocumentMatrix:
        """The tenant's documents and vectors; re-read only when a count/latest-row stamp changed,
        so a document added by another process is seen on the next retrieval."""
        c = routing_documents.c
        async with self._db.engine.connect() as conn:
            count, latest = (
                await conn.execute(select(func.count(), func.max(c.created_at)).where(c.tenant == tenant))
            ).one()
            stamp = (int(count), latest)
            cached = self._cache.get(tenant)
            if cached is not None and cached.stamp == stamp:
                return cached
            rows = (await conn.execute(select(routing_documents).where(c.tenant == tenant).order_by(c.id))).all()
        vectors = (
            np.stack([r.embedding for r in rows]).astype(np.float32)
            if rows
            else np.zeros((0, self._embedder.dimension), dtype=np.float32)
        )
        matrix = DocumentMatrix([_document(dict(r._mapping)) for r in rows], vectors, stamp)
        self._cache[tenant] = matrix
        return matrix
