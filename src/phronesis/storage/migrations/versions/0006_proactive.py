"""Proactive messages (seed 004): users, signals, sends with their feedback, deferred insights, suppressions.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _user_fk() -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tenant", "user_id"], ["proactive_users.tenant", "proactive_users.id"], ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "proactive_users",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("timezone", sa.String(64), nullable=False),
        sa.Column("wake_time", sa.String(5), nullable=False),
        sa.Column("sleep_time", sa.String(5), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("interaction_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_active_at", UTCDateTime, nullable=True),
        sa.Column("last_user_message_at", UTCDateTime, nullable=True),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("address", sa.String(512), nullable=True),
        sa.Column("calendar_url", sa.String(2048), nullable=True),
        sa.Column("ignored_signal_types", sa.JSON, nullable=False),
        sa.Column("patterns", sa.JSON, nullable=False),
        sa.Column("learned_ignored_types", sa.JSON, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "proactive_signals",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("urgency_hint", sa.Integer, nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("context_only", sa.Boolean, nullable=False),
        sa.Column("dedup_key", sa.String(256), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("consumed_at", UTCDateTime, nullable=True),
        sa.Column("cycle_key", sa.String(64), nullable=True),
        _user_fk(),
        sa.CheckConstraint("urgency_hint BETWEEN 1 AND 10", name="urgency"),
        sa.UniqueConstraint("tenant", "user_id", "dedup_key", name="uq_proactive_signals_dedup"),
    )
    op.create_index(
        "ix_proactive_signals_user", "proactive_signals", ["tenant", "user_id", "consumed_at", "expires_at"]
    )
    op.create_table(
        "proactive_sends",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("cycle_key", sa.String(64), nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("category", sa.String(32), nullable=False),
        sa.Column("trigger_signals", sa.JSON, nullable=False),
        sa.Column("action_type", sa.String(16), nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("probability", sa.Float, nullable=True),
        sa.Column("delivery_status", sa.String(12), nullable=False),
        sa.Column("delivery_detail", sa.Text, nullable=True),
        sa.Column("sent_at", UTCDateTime, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False, server_default="pending"),
        sa.Column("response_latency_seconds", sa.Float, nullable=True),
        sa.Column("outcome_at", UTCDateTime, nullable=True),
        _user_fk(),
        sa.CheckConstraint("delivery_status IN ('sending', 'sent', 'failed')", name="delivery"),
        sa.CheckConstraint("outcome IN ('pending', 'engaged', 'ignored', 'negative', 'button_click')", name="outcome"),
        sa.UniqueConstraint("tenant", "user_id", "cycle_key", name="uq_proactive_sends_cycle"),
    )
    op.create_index("ix_proactive_sends_user_time", "proactive_sends", ["tenant", "user_id", "sent_at"])
    op.create_index("ix_proactive_sends_outcome", "proactive_sends", ["tenant", "outcome", "sent_at"])
    op.create_table(
        "proactive_deferred_insights",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("category", sa.String(32), nullable=False),
        sa.Column("message_draft", sa.Text, nullable=False),
        sa.Column("trigger_signals", sa.JSON, nullable=False),
        sa.Column("relevance_score", sa.Float, nullable=False),
        sa.Column("cycle_key", sa.String(64), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("used", sa.Boolean, nullable=False, server_default="0"),
        sa.Column("used_at", UTCDateTime, nullable=True),
        _user_fk(),
    )
    op.create_index(
        "ix_proactive_deferred_insights_fresh",
        "proactive_deferred_insights",
        ["tenant", "user_id", "used", "expires_at"],
    )
    op.create_table(
        "proactive_suppressions",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("category", sa.String(32), primary_key=True),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("suppressed_at", UTCDateTime, nullable=False),
        sa.Column("probation_at", UTCDateTime, nullable=False),
        _user_fk(),
    )


def downgrade() -> None:
    for table in (
        "proactive_suppressions",
        "proactive_deferred_insights",
        "proactive_sends",
        "proactive_signals",
        "proactive_users",
    ):
        op.drop_table(table)
