"""Routing documents are searched by passage: the whole document and each of its sentences.

The model reads a document's first 256 word pieces only, and a whole document blurs what each
sentence says (``routing.passages``). Documents stored before this revision get their passages
here: passage 0 keeps the document's stored vector (the same text); the sentences have none yet
and are embedded by the next process that uses the model (the in-process index embeds what it
loads; with pgvector, ``Engine.start`` embeds them), so no model runs in a migration.
On PostgreSQL with pgvector, the passages get the vector column and its HNSW index, and the
documents' own column and index, no longer searched, are dropped.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.migrations.frozen import COLUMN, add_vector_columns, passage_rows, split_passages
from phronesis.storage.types import EmbeddingBytes

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "routing_passages",
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("id", sa.String(80), nullable=False),
        sa.Column("document_id", sa.String(64), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("embedding", EmbeddingBytes(), nullable=True),
        sa.Column("embedding_model", sa.String(128), nullable=True),
        sa.PrimaryKeyConstraint("tenant", "id", name="pk_routing_passages"),
    )
    op.create_index("ix_routing_passages_tenant_document", "routing_passages", ["tenant", "document_id"])
    bind = op.get_bind()
    documents = sa.table(
        "routing_documents",
        sa.column("tenant", sa.String()),
        sa.column("id", sa.String()),
        sa.column("title", sa.String()),
        sa.column("text", sa.Text()),
        sa.column("embedding", sa.LargeBinary()),
        sa.column("embedding_model", sa.String()),
    )
    stored = sa.table(  # the embeddings as stored: copied, not decoded
        "routing_passages",
        *(sa.column(name) for name in ("tenant", "id", "document_id", "n", "text", "embedding_model")),
        sa.column("embedding", sa.LargeBinary()),
    )
    for doc in bind.execute(sa.select(documents)):
        texts = split_passages(doc.title, doc.text)
        bind.execute(stored.insert(), passage_rows(doc.tenant, doc.id, texts, doc.embedding, doc.embedding_model))
    if bind.dialect.name == "postgresql":
        op.execute(f"DROP INDEX IF EXISTS ix_routing_documents_{COLUMN}")
        op.execute(f"ALTER TABLE routing_documents DROP COLUMN IF EXISTS {COLUMN}")
        add_vector_columns(bind, ("routing_passages",))


def downgrade() -> None:
    op.drop_index("ix_routing_passages_tenant_document", table_name="routing_passages")
    op.drop_table("routing_passages")
