"""pgvector columns and HNSW indexes, where PostgreSQL has the vector extension.

Adds ``embedding_vector vector(384)`` to heuristics, admission runs and routing documents,
filled from the stored embeddings, with an HNSW index over cosine distance each
(``migrations.frozen``). On SQLite, or a PostgreSQL without pgvector, nothing changes and the
in-process indexes serve; ``phronesis db upgrade`` adds them later if pgvector is installed then.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""

from alembic import op

from phronesis.storage.migrations.frozen import COLUMN, add_vector_columns

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

TABLES = ("heuristics", "admission_runs", "routing_documents")
"""The searched tables at this revision (0012 moves routing's search to its passages)."""


def upgrade() -> None:
    add_vector_columns(op.get_bind(), TABLES)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for name in TABLES:
        op.execute(f"DROP INDEX IF EXISTS ix_{name}_{COLUMN}")
        op.execute(f"ALTER TABLE {name} DROP COLUMN IF EXISTS {COLUMN}")
