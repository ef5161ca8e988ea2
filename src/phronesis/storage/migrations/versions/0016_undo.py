"""Undoing an admission decision: each decision keeps what it changed in other runs as
it was before (``prior``), and an undone one says when and by which undo.

Decisions recorded before this revision have no ``prior``: they cannot be undone exactly, and
undo refuses them (a run they added can still be deleted).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("admission_memory_decisions") as batch:
        batch.add_column(sa.Column("prior", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("undone_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("undone_by", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("admission_memory_decisions") as batch:
        batch.drop_column("undone_by")
        batch.drop_column("undone_at")
        batch.drop_column("prior")
