"""Learning (seed 001): fires, signal idempotency and history, evidence state on heuristics.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("heuristics") as batch:
        batch.add_column(sa.Column("prior_alpha", sa.Float, nullable=False, server_default="1"))
        batch.add_column(sa.Column("prior_beta", sa.Float, nullable=False, server_default="1"))
        batch.add_column(sa.Column("evidence_at", UTCDateTime, nullable=True))
        batch.add_column(sa.Column("signal_count", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("ignore_streak", sa.Integer, nullable=False, server_default="0"))
    # existing heuristics: their evidence so far is the best prior there is
    op.execute("UPDATE heuristics SET prior_alpha = alpha, prior_beta = beta")

    with op.batch_alter_table("confidence_events") as batch:
        batch.add_column(sa.Column("signal_key", sa.String(200), nullable=True))
        batch.add_column(sa.Column("event_id", sa.String(256), nullable=True))
        batch.add_column(sa.Column("fire_id", sa.String(64), nullable=True))
        batch.add_column(sa.Column("weight", sa.Float, nullable=True))
        batch.add_column(sa.Column("details", sa.JSON, nullable=True))
    op.create_index(
        "ix_confidence_events_tenant_signal_key", "confidence_events", ["tenant", "signal_key"], unique=True
    )

    op.create_table(
        "heuristic_fires",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("heuristic_id", sa.String(64), nullable=False),
        sa.Column("event_id", sa.String(256), nullable=False),
        sa.Column("source", sa.String(128), nullable=False),
        sa.Column("response_id", sa.String(64), nullable=True),
        sa.Column("fired_at", UTCDateTime, nullable=False),
        sa.Column("implicit_source", sa.String(32), nullable=True),
        sa.Column("implicit_at", UTCDateTime, nullable=True),
        sa.Column("explicit_source", sa.String(32), nullable=True),
        sa.Column("explicit_positive", sa.Boolean, nullable=True),
        sa.Column("explicit_weight", sa.Float, nullable=True),
        sa.Column("explicit_at", UTCDateTime, nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant", "heuristic_id"],
            ["heuristics.tenant", "heuristics.id"],
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_heuristic_fires_tenant_source_fired", "heuristic_fires", ["tenant", "source", "fired_at"])
    op.create_index("ix_heuristic_fires_open", "heuristic_fires", ["implicit_source", "fired_at"])
    op.create_index("ix_heuristic_fires_tenant_response", "heuristic_fires", ["tenant", "response_id"])


def downgrade() -> None:
    op.drop_table("heuristic_fires")
    op.drop_index("ix_confidence_events_tenant_signal_key", table_name="confidence_events")
    with op.batch_alter_table("confidence_events") as batch:
        for column in ("details", "weight", "fire_id", "event_id", "signal_key"):
            batch.drop_column(column)
    with op.batch_alter_table("heuristics") as batch:
        for column in ("ignore_streak", "signal_count", "evidence_at", "prior_beta", "prior_alpha"):
            batch.drop_column(column)
