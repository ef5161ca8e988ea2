"""The knowledge base the local retriever searches: documents with a type, a date and passages.

A document is searched by its passages (``routing.passages``: the whole document, then each
sentence), held in an in-process index that follows the database's change feed
(``storage.followed_index``), like heuristics and runs, or searched in PostgreSQL with pgvector:
a document added or deleted by another process is found (or no longer found) by the next
retrieval, without re-reading the tenant's documents.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

import numpy as np
from pydantic import ConfigDict, Field
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.clock import Clock, Instant
from phronesis.embeddings.types import Embedder, Vectors, embed_in_chunks
from phronesis.exceptions import ConflictError, InvalidInputError
from phronesis.ids import new_id
from phronesis.json_values import JsonObject
from phronesis.pages import Page
from phronesis.routing.lexical import content_words
from phronesis.routing.passages import (
    PARTITION,
    PassageSource,
    document_of,
    passage_key,
    passage_rows,
    split_passages,
)
from phronesis.schema import Schema
from phronesis.storage.change_feed import ChangeLog
from phronesis.storage.database import Database
from phronesis.storage.feed_follower import SnapshotPolicy
from phronesis.storage.followed_index import CollectionIndex, FollowedIndex
from phronesis.storage.inserts import upsert
from phronesis.storage.paging import fetch_page
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.pgvector import PgVectorCollection, PgVectorColumn
from phronesis.storage.tables import routing_documents, routing_passages
from phronesis.storage.vector_backend import VectorBackend

__all__ = ["Document", "DocumentHit", "DocumentIn", "DocumentRepository", "DocumentStatus"]

DocumentStatus = Literal["current", "superseded"]

PASSAGES_PER_DOCUMENT = 4
"""How many passages are searched for each document asked for: several sentences of one document
may lead, and a document is counted once (at its best passage)."""
PASSAGE_TIE: Final = 0.05
"""Sentences of one document within this cosine of its best are told apart by the query's words."""


class DocumentIn(Schema):
    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._:@-]+$")
    """The document's id (letters, digits and ``._:@-``, at most 64); a random one when left out.
    With ``PUT /v1/documents/{id}`` it may be left out, and must match the path if given."""
    doc_type: str = Field(default="general", min_length=1, max_length=32, pattern=r"^[a-z0-9_-]+$")
    """The kind of document (``pricing``, ``sop``, ``policy``, ``faq``, ``general`` …): sets its
    quality in ranking (``routing.doc_type_quality``; an unknown type counts as ``general``), and
    only documents of the same type are checked for conflicting figures."""
    title: str = Field(default="", max_length=300)
    """A short title, searched with the text and shown with the sources that cite it."""
    text: str = Field(min_length=1, max_length=20000)
    """The content (1–20000 characters): searched as a whole and sentence by sentence."""
    published_at: Instant | None = None
    """When the content was last true; recency decays from here (None: the default recency)."""
    attributes: JsonObject = Field(default_factory=dict)
    """Free-form metadata kept with the document and returned with it; not used in search or ranking."""
    status: DocumentStatus = "current"
    """``current``, or ``superseded``: an outdated version kept for the record (a 2022 price sheet),
    never an answer while a document of its type is found beside it."""


class Document(Schema):
    model_config = ConfigDict(frozen=True)

    id: str
    """The document's id: the one given, or a random one."""
    doc_type: str
    """The kind of document (``pricing``, ``sop``, ``policy``, ``faq``, ``general`` …); sets its
    quality in ranking."""
    title: str
    """The document's title (may be empty)."""
    text: str
    """The document's content."""
    published_at: datetime | None
    """When the content was last true (UTC); recency decays from here. None: undated (the
    default recency)."""
    created_at: datetime
    """When the document was first stored (UTC); a ``PUT`` that replaces it keeps it."""
    attributes: dict[str, Any]
    """Free-form metadata given with the document."""
    status: DocumentStatus = "current"
    """``current`` or ``superseded`` (an outdated version kept for the record)."""


class DocumentPut(Document):
    """A document a ``PUT`` stored, and whether it was new."""

    created: bool
    """True: there was no document of this id (``201``); False: it replaced one (``200``)."""


@dataclass(frozen=True, slots=True)
class DocumentHit:
    document: Document
    similarity: float
    """The best passage's cosine similarity to the query."""
    vector: Vectors
    """The whole document's vector (passage 0, as the model in use embedded it): retrieval
    compares the sources it keeps with each other by it."""
    passage: str | None = None
    """The sentence that matched best, when it was not the whole document."""


def _document(values: Mapping[str, Any]) -> Document:
    """A stored row (or the values just inserted) without the columns callers never see."""
    hidden = ("tenant", "embedding", "embedding_model")
    return Document.model_validate({k: v for k, v in values.items() if k not in hidden})


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
        backend: VectorBackend | None = None,
    ) -> None:
        self._db = database
        self._embedder = embedder
        self._clock = clock
        self._backend = backend = backend or VectorBackend()
        self.changes = ChangeLog(database, "passages")
        self.passages = PassageSource(database, self.changes, clock, backend)
        self._in_database = PgVectorCollection(database, PgVectorColumn.of("routing_passages"), partition=None)
        self._in_process: CollectionIndex = FollowedIndex(
            index or PartitionedIndex(embedder.dimension),
            self.passages,
            self.changes,
            embedder,
            interval_s=follow_interval_s,
            snapshot=snapshot,
        )

    @property
    def vectors(self) -> CollectionIndex:
        """Where passages are searched: in this process, following the database, or in PostgreSQL
        (the engine's ``VectorBackend``)."""
        return self._in_database if self._backend.in_database else self._in_process

    @property
    def vector_column(self) -> PgVectorColumn | None:
        """pgvector's column, where the database has it: every write of a passage's vector fills it too."""
        return self.passages.vector_column

    async def rows(
        self,
        tenant: str,
        documents: Sequence[DocumentIn],
        ids: Sequence[str],
        texts: Sequence[Sequence[str]] | None = None,
        vectors: Vectors | None = None,
    ) -> tuple[builtins.list[dict[str, Any]], builtins.list[dict[str, Any]]]:
        """The document rows and their passages' rows, embedded (before any transaction opens:
        embedding is the slow part and holds no lock). ``texts``: each document's passages, and
        ``vectors`` theirs in order, where the caller has split or embedded them already."""
        texts = texts if texts is not None else [split_passages(d.title, d.text) for d in documents]
        flat = vectors
        if flat is None:
            flat = await embed_in_chunks(self._embedder, [t for passages in texts for t in passages])
        model = self._embedder.model_name
        now = self._clock.now()
        rows, passages, at = [], [], 0
        for d, doc_id, own in zip(documents, ids, texts, strict=True):
            mine = builtins.list(flat[at : at + len(own)])
            at += len(own)
            rows.append(
                d.model_dump(exclude={"id"})
                | {"tenant": tenant, "id": doc_id, "embedding": mine[0], "embedding_model": model, "created_at": now}
            )
            passages += passage_rows(tenant, doc_id, own, mine, model)
        return rows, passages

    async def _write_passages(
        self, conn: AsyncConnection, tenant: str, passages: Sequence[dict[str, Any]], removed: Sequence[str] = ()
    ) -> None:
        """Insert passages, with their feed entries (after the removals they replace) and pgvector column."""
        await conn.execute(routing_passages.insert(), builtins.list(passages))
        changes = [("remove", key) for key in removed] + [("add", p["id"]) for p in passages]
        await self.changes.append(conn, tenant, changes, self._clock.now())
        if self.vector_column is not None:
            await self.vector_column.write(conn, tenant, [(p["id"], p["embedding"]) for p in passages])

    def applied(self, tenant: str, passages: Sequence[dict[str, Any]]) -> None:
        """This process's index takes the passages just committed (others follow the feed)."""
        self.vectors.applied(
            tenant, PARTITION, [p["id"] for p in passages], np.stack([p["embedding"] for p in passages])
        )

    async def add(self, tenant: str, documents: Sequence[DocumentIn]) -> list[Document]:
        """Embed and store ``documents`` with their passages in one transaction; an existing id is
        a conflict, nothing stored."""
        if not documents:
            raise InvalidInputError("documents", "at least one document is required")
        ids = [d.id or new_id() for d in documents]
        if len(set(ids)) != len(ids):
            raise ConflictError("id", "the same id appears twice in one request")
        async with self._db.connect() as conn:  # refused before the embedding, not after (409 after 29 s)
            await none_taken(conn, tenant, ids)
        rows, passages = await self.rows(tenant, documents, ids)
        async with self._db.transaction() as conn:
            await self.insert(conn, tenant, rows, passages)
        self.applied(tenant, passages)
        return [_document(r) for r in rows]

    async def insert(
        self, conn: AsyncConnection, tenant: str, rows: Sequence[dict[str, Any]], passages: Sequence[dict[str, Any]]
    ) -> None:
        """Store embedded documents and their passages in the caller's transaction; an id taken since it was
        checked (by another request) is a conflict, and the transaction stores nothing."""
        await none_taken(conn, tenant, [row["id"] for row in rows])
        await conn.execute(routing_documents.insert(), builtins.list(rows))
        await self._write_passages(conn, tenant, passages)

    async def put(self, tenant: str, document_id: str, document: DocumentIn) -> tuple[Document, bool]:
        """Store ``document`` under ``document_id``, replacing the one there in one transaction
        (with a ``DELETE`` and a ``POST``, between them, or for good if the ``POST`` failed, the
        knowledge base would have no such document). True when it was new.

        The document row is upserted first: its row lock makes a concurrent ``PUT`` of the same id
        wait, so the old passages this one removes are all the passages there are, and the winner's
        passages are never mixed with the loser's (on SQLite the write lock does the same)."""
        if document.id is not None and document.id != document_id:
            raise InvalidInputError("id", f"the body names {document.id!r} but the path names {document_id!r}")
        rows, passages = await self.rows(tenant, [document], [document_id])
        p = routing_passages.c
        columns = [name for name in rows[0] if name not in ("tenant", "id", "created_at")]  # first stored: kept
        c = routing_documents.c
        async with self._db.transaction() as conn:
            await conn.execute(upsert(self._db.dialect, routing_documents, ["tenant", "id"], columns), rows)
            first_stored = (
                await conn.execute(select(c.created_at).where(c.tenant == tenant, c.id == document_id))
            ).scalar_one()
            old = (
                (await conn.execute(select(p.id).where(p.tenant == tenant, p.document_id == document_id)))
                .scalars()
                .all()
            )
            await conn.execute(delete(routing_passages).where(p.tenant == tenant, p.document_id == document_id))
            await self._write_passages(conn, tenant, passages, removed=old)
        for key in set(old) - {q["id"] for q in passages}:
            self.vectors.removed(tenant, key)
        self.applied(tenant, passages)
        return _document(rows[0] | {"created_at": first_stored}), not old  # every stored document has a passage

    async def list(self, tenant: str, *, limit: int = 100, offset: int = 0) -> Page[Document]:
        c = routing_documents.c
        async with self._db.connect() as conn:
            query = select(routing_documents).where(c.tenant == tenant).order_by(c.created_at, c.id)
            return await fetch_page(conn, query, lambda r: _document(dict(r._mapping)), limit=limit, offset=offset)

    async def delete(self, tenant: str, document_id: str) -> bool:
        """Delete a document and its passages in one transaction; False if there was none."""
        p = routing_passages.c
        async with self._db.transaction() as conn:
            result = await conn.execute(
                delete(routing_documents).where(
                    routing_documents.c.tenant == tenant, routing_documents.c.id == document_id
                )
            )
            keys: builtins.list[str] = []
            if result.rowcount:
                keys = list(
                    (await conn.execute(select(p.id).where(p.tenant == tenant, p.document_id == document_id)))
                    .scalars()
                    .all()
                )
                await conn.execute(delete(routing_passages).where(p.tenant == tenant, p.document_id == document_id))
                await self.changes.append(conn, tenant, [("remove", key) for key in keys], self._clock.now())
        if not result.rowcount:
            return False
        for key in keys:
            self.vectors.removed(tenant, key)
        return True

    async def search(self, tenant: str, vector: Vectors, k: int, *, query: str = "") -> builtins.list[DocumentHit]:
        """The ``k`` documents whose best passage is most similar to ``vector``, most similar first,
        with their whole vectors (retrieval compares the ones it keeps with each other) and the
        sentence that matched: of the sentences about as similar as the best (``PASSAGE_TIE``), the
        one that shares most words with ``query``. By similarity alone "Are annual plans refundable?"
        is shown "Monthly plans are not refundable." (the model reads the negation as close), beside
        "Annual plans are refundable within 30 days of purchase.". The document's
        similarity stays its best passage's."""
        passages = await self.vectors.search(tenant, vector, k * PASSAGES_PER_DOCUMENT)
        best: dict[str, tuple[str, float]] = {}
        close: dict[str, builtins.list[str]] = {}
        for _, key, score in passages:  # most similar first: a document's first passage is its best
            doc_id = document_of(key)
            best.setdefault(doc_id, (key, score))
            if score >= best[doc_id][1] - PASSAGE_TIE and not key.endswith("#0"):
                close.setdefault(doc_id, []).append(key)
        chosen = list(best.items())[:k]
        if not chosen:
            return []
        c, p = routing_documents.c, routing_passages.c
        ties = [key for doc_id, _ in chosen for key in close.get(doc_id, [])] if query else []
        wanted = [passage_key(doc_id, 0) for doc_id, _ in chosen] + [key for _, (key, _) in chosen] + ties
        async with self._db.connect() as conn:
            rows = await conn.execute(select(routing_documents).where(c.tenant == tenant, c.id.in_(best)))
            found = {row.id: row for row in rows}
            rows = await conn.execute(
                select(p.id, p.text, p.embedding).where(p.tenant == tenant, p.id.in_(set(wanted)))
            )
            stored = {row.id: row for row in rows}
        hits: builtins.list[DocumentHit] = []
        for doc_id, (key, score) in chosen:
            whole = stored.get(passage_key(doc_id, 0))
            if doc_id not in found or whole is None or whole.embedding is None:
                continue  # deleted since the index last followed the feed
            matched = stored.get(key)
            tied = [stored[k] for k in close.get(doc_id, []) if k in stored] if query else []
            if tied:  # most words of the query, then most similar (the order found)
                asked = content_words(query)
                matched = max(tied, key=lambda row: len(asked & content_words(row.text)))
            hits.append(
                DocumentHit(
                    _document(dict(found[doc_id]._mapping)),
                    score,
                    np.asarray(whole.embedding, dtype=np.float32),
                    matched.text if matched is not None and matched.id != whole.id else None,
                )
            )
        return hits

    async def embed_missing(self, batch: int = 1000) -> int:
        """Embed the passages that have no vector yet (those of documents stored before passages
        existed: migration 0012), so pgvector, which loads nothing, searches them too (at start-up,
        ``Engine.start``). An in-process index embeds them itself when it loads."""
        done = 0
        while rows := await self.passages.unembedded(batch):
            vectors = await embed_in_chunks(self._embedder, [row.text for row in rows])
            await self.passages.set_embeddings(
                [(row.tenant, row.key, v) for row, v in zip(rows, vectors, strict=True)], self._embedder.model_name
            )
            done += len(rows)
        return done


async def none_taken(conn: AsyncConnection, tenant: str, ids: Sequence[str]) -> None:
    """A ``ConflictError`` naming the first of ``ids`` the tenant has already."""
    query = select(routing_documents.c.id).where(routing_documents.c.tenant == tenant, routing_documents.c.id.in_(ids))
    taken = (await conn.execute(query)).scalars().first()
    if taken is not None:
        raise ConflictError("id", f"document {taken!r} already exists")
