"""What the migrations run beyond DDL, copied as it stood at their revisions: the pgvector columns
and HNSW indexes (0008, 0012, 0013) and routing's passage split (0012).

Why copies: a migration must do tomorrow what it did the day it was written. Had it imported the
application's code (``storage.pgvector``, ``routing.passages``), a later change there (another
split, another graph) would silently change what an old database's upgrade does. The application
keeps its own ``storage.pgvector.ensure_schema`` for the tables later revisions add."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, text

__all__ = ["COLUMN", "add_vector_columns", "passage_rows", "rebuild_other_graphs", "split_passages"]

log = logging.getLogger("phronesis.storage.migrations")

COLUMN = "embedding_vector"
DIMENSION = 384
HNSW_M = 24
HNSW_EF_CONSTRUCTION = 128


def add_vector_columns(connection: Connection, tables: Sequence[str]) -> None:
    """Give ``tables`` the ``vector(384)`` column, filled from the ``bytea`` embeddings, and its
    HNSW index over cosine distance, where this is PostgreSQL with pgvector; idempotent."""
    if connection.dialect.name != "postgresql":
        return
    if connection.execute(text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")).first() is None:
        return
    present = connection.execute(
        text(
            "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND column_name = :column AND table_name = ANY(:tables)"
        ),
        {"column": COLUMN, "tables": list(tables)},
    ).scalar_one()
    if present == len(tables):
        return
    connection.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    for name in tables:
        connection.execute(text(f"ALTER TABLE {name} ADD COLUMN IF NOT EXISTS {COLUMN} vector({DIMENSION})"))
        _backfill(connection, name)
        _create_index(connection, name)
        connection.execute(text(f"ANALYZE {name}"))


def _backfill(connection: Connection, name: str, batch: int = 5000) -> None:
    """The vector column from the embeddings of the model's dimension (others are re-embedded)."""
    select = text(
        f"SELECT tenant, id, embedding FROM {name} WHERE {COLUMN} IS NULL "
        f"AND octet_length(embedding) = {DIMENSION * 4} LIMIT {batch}"
    )
    update = text(f"UPDATE {name} SET {COLUMN} = CAST(:vector AS vector) WHERE tenant = :tenant AND id = :id")
    while True:
        rows = connection.execute(select).all()
        if rows:
            connection.execute(
                update,
                [
                    {"tenant": row.tenant, "id": row.id, "vector": _vector_text(bytes(row.embedding))}
                    for row in rows
                ],
            )
        if len(rows) < batch:
            return


def _vector_text(embedding: bytes) -> str:
    """pgvector's text form of a stored embedding (little-endian float32; nine digits round-trip)."""
    return "[" + ",".join(f"{x:.9g}" for x in np.frombuffer(embedding, dtype="<f4").tolist()) + "]"


def _create_index(connection: Connection, name: str) -> None:
    connection.execute(
        text(
            f"CREATE INDEX IF NOT EXISTS ix_{name}_{COLUMN} ON {name} USING hnsw ({COLUMN} vector_cosine_ops) "
            f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
        )
    )


def rebuild_other_graphs(connection: Connection, tables: Sequence[str]) -> None:
    """Rebuild each HNSW index of ``tables`` built with other parameters than m=24,
    ef_construction=128 (0013: ``CREATE INDEX IF NOT EXISTS`` keeps an old graph as it is)."""
    if connection.dialect.name != "postgresql":
        return
    wanted = {f"m={HNSW_M}", f"ef_construction={HNSW_EF_CONSTRUCTION}"}
    for name in tables:
        options = connection.execute(
            text(
                "SELECT reloptions FROM pg_class "
                "WHERE relname = :index AND relnamespace = current_schema()::regnamespace"
            ),
            {"index": f"ix_{name}_{COLUMN}"},
        ).first()
        if options is None or wanted <= set(options[0] or ()):
            continue
        rows = connection.execute(text(f"SELECT count(*) FROM {name} WHERE {COLUMN} IS NOT NULL")).scalar_one()
        log.warning(
            "pgvector: rebuilding the index of %s (%d vectors) with m=%d, ef_construction=%d (was %s); "
            "about 35 minutes per million vectors on 2 cores",
            name,
            rows,
            HNSW_M,
            HNSW_EF_CONSTRUCTION,
            ", ".join(options[0] or ()) or "the defaults",
        )
        connection.execute(text(f"DROP INDEX ix_{name}_{COLUMN}"))
        _create_index(connection, name)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[“‘])|\n\s*\n")
_MIN_WORDS = 4
_MAX_WORDS = 120


def _sentences(body: str) -> list[str]:
    pieces: list[str] = []
    pending = ""
    for raw in _SENTENCE_END.split(body):
        sentence = " ".join(raw.split())
        if not sentence:
            continue
        pending = f"{pending} {sentence}".strip()
        if len(pending.split()) >= _MIN_WORDS:
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
        cut.extend(" ".join(words[i : i + _MAX_WORDS]) for i in range(0, len(words), _MAX_WORDS))
    return cut


def split_passages(title: str, body: str) -> list[str]:
    """0012's passages of a document: its whole text, then its sentences (of at least four words,
    at most 120), each after its title; none but the whole when the text is one sentence."""
    whole = f"{title}\n{body}".strip()
    sentences = _sentences(body)
    if len(sentences) < 2:
        return [whole]
    return [whole] + [f"{title}: {s}" if title else s for s in sentences]


def passage_rows(
    tenant: str, document_id: str, texts: Sequence[str], first: bytes | None, model: str | None
) -> list[dict[str, Any]]:
    """0012's rows of one document's passages: the first keeps the document's stored embedding
    (the same text); the sentences have none yet and are embedded when first indexed."""
    return [
        {
            "tenant": tenant,
            "id": f"{document_id}#{n}",
            "document_id": document_id,
            "n": n,
            "text": passage,
            "embedding": first if n == 0 else None,
            "embedding_model": model if n == 0 else None,
        }
        for n, passage in enumerate(texts)
    ]
