"""The knowledge base the local retriever searches: documents with a type, a date and an embedding.

Their vectors are searched in an in-process index that follows the database's change feed
(``storage.followed_index``), like heuristics and runs: a document added or deleted by
another process is found (or no longer found) by the next retrieval, without re-reading
the tenant's documents.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Row, delete, func, select, tuple_

from phronesis.clock import Clock, Instant
from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import ConflictError, InvalidInputError
from phronesis.storage.change_feed import ChangeLog
from phronesis.storage.database import Database
from phronesis.storage.followed_index import CollectionIndex, FollowedIndex, IndexedRow, SnapshotPolicy
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.pgvector import PgVectorCollection, PgVectorColumn
from phronesis.storage.reembedding import store_embeddings
from phronesis.storage.tables import routing_documents

__all__ = ["Document", "DocumentHit", "DocumentIn", "DocumentRepository"]

_PARTITION = ""
"""A tenant's documents are one partition: retrieval has no hard filter below the tenant."""


class DocumentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._:@-]+$")
    doc_type: str = Field(default="general", min_length=1, max_length=32, pattern=r"^[a-z0-9_-]+$")
    title: str = Field(default="", max_length=300)
    text: str = Field(min_length=1, max_length=20000)
    published_at: Instant | None = None
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
class DocumentHit:
    document: Document
    similarity: float
    vector: Vectors


def _document(values: Mapping[str, Any]) -> Document:
    """A stored row (or the values just inserted) without the columns callers never see."""
    hidden = ("tenant", "embedding", "embedding_model")
    return Document.model_validate({k: v for k, v in values.items() if k not in hidden})


def _embedded_text(title: str, text: str) -> str:
    return f"{title}\n{text}".strip()


def _indexed(row: Row[Any, Any, Any, Any, Any, Any]) -> IndexedRow:
    return IndexedRow(
        row.tenant, row.id, _PARTITION, _embedded_text(row.title, row.text), row.embedding, row.embedding_model
    )


class DocumentRepository:
    def __init__(
        self,
        database: Database,
        embedder: Embedder,
        clock: Clock,
        *,
        index: PartitionedIndex | None = None,
        follow_interval_s: float = 0.0,
        snapshot: SnapshotPolicy | None = None,
    ) -> None:
        self._db = database
        self._embedder = embedder
        self._clock = clock
        self.changes = ChangeLog(database, "documents")
        self.vector_column: PgVectorColumn | None = None
        """Set where the database has pgvector's columns: every write of an embedding fills it too."""
        self.vectors: CollectionIndex = FollowedIndex(
            index or PartitionedIndex(embedder.dimension),
            self,
            self.changes,
            embedder,
            interval_s=follow_interval_s,
            snapshot=snapshot,
        )

    async def add(self, tenant: str, documents: Sequence[DocumentIn]) -> list[Document]:
        """Embed and store ``documents`` in one transaction; an existing id is a conflict, nothing stored."""
        if not documents:
            raise InvalidInputError("documents", "at least one document is required")
        ids = [d.id or uuid.uuid4().hex for d in documents]
        if len(set(ids)) != len(ids):
            raise ConflictError("id", "the same id appears twice in one request")
        vectors = await self._embedder.embed([_embedded_text(d.title, d.text) for d in documents])
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
            await self.changes.append(conn, tenant, (("add", doc_id) for doc_id in ids), now)
            if self.vector_column is not None:
                await self.vector_column.write(conn, tenant, list(zip(ids, vectors, strict=True)))
        self.vectors.applied(tenant, _PARTITION, ids, vectors)
        return [_document(r) for r in rows]

    async def list(self, tenant: str, *, limit: int = 100, offset: int = 0) -> list[Document]:
        c = routing_documents.c
        async with self._db.connect() as conn:
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
            if result.rowcount:
                await self.changes.append(conn, tenant, [("remove", document_id)], self._clock.now())
        if not result.rowcount:
            return False
        self.vectors.removed(tenant, document_id)
        return True

    async def search(self, tenant: str, vector: Vectors, k: int) -> builtins.list[DocumentHit]:
        """The ``k`` documents most similar to ``vector``, most similar first, with their vectors
        (retrieval compares the ones it keeps with each other)."""
        hits = await self.vectors.search(tenant, vector, k)
        if not hits:
            return []
        c = routing_documents.c
        async with self._db.connect() as conn:
            rows = await conn.execute(
                select(routing_documents).where(c.tenant == tenant, c.id.in_([h[1] for h in hits]))
            )
            found = {row.id: row for row in rows}
        return [
            DocumentHit(_document(dict(found[key]._mapping)), score, np.asarray(found[key].embedding, dtype=np.float32))
            for _, key, score in hits
            if key in found  # deleted since the index last followed the feed
        ]

    # ---- what the followed index reads (IndexSource) ---------------------------------------

    async def iter_rows(self, batch_size: int = 5000) -> AsyncIterator[builtins.list[IndexedRow]]:
        c = routing_documents.c
        columns = (c.tenant, c.id, c.title, c.text, c.embedding, c.embedding_model)
        after: tuple[str, str] = ("", "")
        while True:
            async with self._db.connect() as conn:
                query = select(*columns).where(tuple_(c.tenant, c.id) > after).order_by(c.tenant, c.id)
                rows = (await conn.execute(query.limit(batch_size))).all()
            if not rows:
                return
            yield [_indexed(r) for r in rows]
            after = (rows[-1].tenant, rows[-1].id)

    async def rows(self, tenant: str, keys: Sequence[str]) -> builtins.list[IndexedRow]:
        c = routing_documents.c
        columns = (c.tenant, c.id, c.title, c.text, c.embedding, c.embedding_model)
        async with self._db.connect() as conn:
            rows = await conn.execute(select(*columns).where(c.tenant == tenant, c.id.in_(list(keys))))
            return [_indexed(r) for r in rows]

    async def count(self) -> int:
        async with self._db.connect() as conn:
            return int((await conn.execute(select(func.count()).select_from(routing_documents))).scalar_one())

    async def set_embeddings(self, items: Sequence[tuple[str, str, Vectors]], embedding_model: str) -> None:
        """Store vectors computed again for documents embedded by another model."""
        async with self._db.transaction() as conn:
            await store_embeddings(
                conn,
                routing_documents,
                items,
                embedding_model,
                at=self._clock.now(),
                changes=self.changes,
                vector_column=self.vector_column,
            )

    def use_pgvector(self) -> None:
        """Search documents with pgvector inside PostgreSQL (``index.backend``); nothing held here."""
        self.vectors = PgVectorCollection(self._db, PgVectorColumn.of("routing_documents"), partition=None)
