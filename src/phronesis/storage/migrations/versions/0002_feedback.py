"""Explicit feedback on decisions, idempotent by key.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("idempotency_key", sa.String(128), nullable=False),
        sa.Column("response_id", sa.String(64), nullable=False),
        sa.Column("scale", sa.String(16), nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("magnitude", sa.Float, nullable=False),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("heuristic_id", sa.String(64), nullable=True),
        sa.Column("effect", sa.String(32), nullable=False),
        sa.Column("comment", sa.Text, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("tenant", "idempotency_key", name="uq_feedback_tenant_idempotency_key"),
    )
    op.create_index("ix_feedback_tenant_response", "feedback", ["tenant", "response_id"])


def downgrade() -> None:
    op.drop_index("ix_feedback_tenant_response", table_name="feedback")
    op.drop_table("feedback")
