"""A document's passages: what retrieval embeds and searches.

all-MiniLM-L6-v2 reads at most 256 word pieces, so a document embedded whole is searched by its
first paragraph only (a 20,000-character document is 90 % invisible), and even a short one
blurs: "Is there an audit log?" scores 0.23 against a security policy that says "Enterprise has an
audit log", 0.49 against that sentence (sales set, test half). So a document is searched as
passages: passage 0 is the whole document (title and text: what it is about), then
each sentence of the text with the title in front of it (what it says, in context). A document's
similarity is its best passage's; the sentence that matched is shown as the source's passage.

Keys are ``DOCUMENT_ID#N``: a document id cannot contain ``#`` (``DocumentIn.id``).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

from sqlalchemy import Row, func, select

from phronesis.clock import Clock
from phronesis.embeddings.types import Vectors
from phronesis.storage.change_feed import ChangeLog
from phronesis.storage.database import Database
from phronesis.storage.followed_index import IndexedRow
from phronesis.storage.index_rows import rows_by_key, rows_in_key_order
from phronesis.storage.pgvector import PgVectorColumn
from phronesis.storage.reembedding import store_embeddings_now
from phronesis.storage.tables import routing_passages
from phronesis.storage.vector_backend import VectorBackend

__all__ = ["PARTITION", "PassageSource", "document_of", "passage_key", "split_passages"]

PARTITION: Final = ""
"""A tenant's passages are one partition: retrieval has no hard filter below the tenant."""
MIN_WORDS: Final = 4
"""A shorter sentence ("Yes." "See below.") says too little alone: it joins the next one."""
MAX_WORDS: Final = 120
"""A longer run of words is cut into pieces the model reads whole (256 word pieces)."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[“‘])|\n\s*\n")


def whole_text(title: str, text: str) -> str:
    """Passage 0: the document as it was always embedded."""
    return f"{title}\n{text}".strip()


def _sentences(text: str) -> list[str]:
    pieces: list[str] = []
    pending = ""
    for raw in _SENTENCE_END.split(text):
        sentence = " ".join(raw.split())
        if not sentence:
            continue
        pending = f"{pending} {sentence}".strip()
        if len(pending.split()) >= MIN_WORDS:
            pieces.append(pending)
            pending = ""
    if pending:
        if pieces:
            pieces[-1] = f"{pieces[-1]} {pending}"
        else:
            pieces.append(pending)
    cut: list[str] = []
    for piece in pieces:
        words = piece.split()
        cut.extend(" ".join(words[i : i + MAX_WORDS]) for i in range(0, len(words), MAX_WORDS))
    return cut


def split_passages(title: str, text: str) -> list[str]:
    """The texts to embed for one document: the whole first, then its sentences (none when the
    text is one sentence: the whole says it)."""
    sentences = _sentences(text)
    if len(sentences) < 2:
        return [whole_text(title, text)]
    return [whole_text(title, text)] + [f"{title}: {s}" if title else s for s in sentences]


def passage_key(document_id: str, n: int) -> str:
    return f"{document_id}#{n}"


def document_of(key: str) -> str:
    return key.rsplit("#", 1)[0]


def passage_rows(
    tenant: str, document_id: str, texts: Sequence[str], vectors: Sequence[Vectors | None], model: str | None
) -> list[dict[str, Any]]:
    """The rows of one document's passages (a vector of None: embedded when first indexed)."""
    return [
        {
            "tenant": tenant,
            "id": passage_key(document_id, n),
            "document_id": document_id,
            "n": n,
            "text": passage,
            "embedding": vector,
            "embedding_model": model if vector is not None else None,
        }
        for n, (passage, vector) in enumerate(zip(texts, vectors, strict=True))
    ]


_c = routing_passages.c
_INDEXED = select(_c.tenant, _c.id, _c.text, _c.embedding, _c.embedding_model)


def _indexed(row: Row[Any, Any, Any, Any, Any]) -> IndexedRow:
    return IndexedRow(row.tenant, row.id, PARTITION, row.text, row.embedding, row.embedding_model)


class PassageSource:
    """The passages table as the followed index reads it (``storage.followed_index.IndexSource``)."""

    def __init__(self, database: Database, changes: ChangeLog, clock: Clock, backend: VectorBackend) -> None:
        self._db = database
        self._changes = changes
        self._clock = clock
        self._backend = backend

    @property
    def vector_column(self) -> PgVectorColumn | None:
        """pgvector's column, where the database has it: every write of an embedding fills it too."""
        return self._backend.column("routing_passages")

    async def iter_rows(self, batch_size: int = 5000) -> AsyncIterator[list[IndexedRow]]:
        async for batch in rows_in_key_order(self._db, _INDEXED, routing_passages, _indexed, batch_size=batch_size):
            yield batch

    async def rows(self, tenant: str, keys: Sequence[str]) -> list[IndexedRow]:
        return await rows_by_key(self._db, _INDEXED, routing_passages, _indexed, tenant, keys)

    async def count(self) -> int:
        async with self._db.connect() as conn:
            return int((await conn.execute(select(func.count()).select_from(routing_passages))).scalar_one())

    async def set_embeddings(self, items: Sequence[tuple[str, str, Vectors]], embedding_model: str) -> None:
        """Store vectors computed for passages not embedded yet, or embedded by another model."""
        await store_embeddings_now(
            self._db,
            routing_passages,
            items,
            embedding_model,
            at=self._clock.now(),
            changes=self._changes,
            vector_column=self.vector_column,
        )

    async def unembedded(self, limit: int = 1000) -> list[IndexedRow]:
        """Passages with no vector yet (written by the migration for documents stored before
        passages existed): what pgvector cannot search until they are embedded."""
        c = routing_passages.c
        columns = (c.tenant, c.id, c.text, c.embedding, c.embedding_model)
        async with self._db.connect() as conn:
            rows = await conn.execute(
                select(*columns).where(c.embedding.is_(None)).order_by(c.tenant, c.id).limit(limit)
            )
            return [_indexed(r) for r in rows]
