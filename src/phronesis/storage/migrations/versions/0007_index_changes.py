"""One change feed for every vector index: ``index_changes`` replaces ``admission_index_log``.

Heuristics, admission runs and routing documents append to it in the transaction that changes
them, so every process's in-memory index follows the database by one mechanism.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "index_changes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("collection", sa.String(16), nullable=False),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("op", sa.String(8), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.CheckConstraint("op IN ('add', 'remove')", name="op"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_index_changes_collection_id", "index_changes", ["collection", "id"])
    # the runs log moves over in its order; processes rebuild their indexes after a migration anyway
    op.execute(
        "INSERT INTO index_changes (collection, tenant, key, op, created_at) "
        "SELECT 'runs', tenant, run_id, op, created_at FROM admission_index_log ORDER BY id"
    )
    op.drop_table("admission_index_log")


def downgrade() -> None:
    op.create_table(
        "admission_index_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("op", sa.String(8), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.CheckConstraint("op IN ('add', 'remove')", name="op"),
    )
    op.execute(
        "INSERT INTO admission_index_log (tenant, run_id, op, created_at) "
        "SELECT tenant, key, op, created_at FROM index_changes WHERE collection = 'runs' ORDER BY id"
    )
    op.drop_index("ix_index_changes_collection_id", table_name="index_changes")
    op.drop_table("index_changes")
