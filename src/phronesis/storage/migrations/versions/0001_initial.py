"""Initial schema: heuristics, confidence events, decision records.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import EmbeddingBytes, UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "heuristics",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("domain", sa.String(128), nullable=False, server_default=""),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("condition_text", sa.Text, nullable=False),
        sa.Column("action_text", sa.Text, nullable=False),
        sa.Column("embedding", EmbeddingBytes, nullable=True),
        sa.Column("embedding_model", sa.String(128), nullable=True),
        sa.Column("alpha", sa.Float, nullable=False),
        sa.Column("beta", sa.Float, nullable=False),
        sa.Column("confidence", sa.Float, nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("origin_id", sa.String(128), nullable=True),
        sa.Column("locked", sa.Boolean, nullable=False, server_default="0"),
        sa.Column("floor", sa.Float, nullable=False, server_default="0"),
        sa.Column("ceiling", sa.Float, nullable=False, server_default="1"),
        sa.Column("feedback_weight", sa.Float, nullable=False, server_default="1"),
        sa.Column("fire_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("success_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("failure_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_fired_at", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("attributes", sa.JSON, nullable=False),
        sa.CheckConstraint("alpha > 0 AND beta > 0", name="evidence_positive"),
        sa.CheckConstraint("confidence >= 0 AND confidence <= 1", name="confidence_range"),
        sa.CheckConstraint("floor >= 0 AND ceiling <= 1 AND floor <= ceiling", name="bounds"),
        sa.CheckConstraint("feedback_weight >= 0.25 AND feedback_weight <= 2.0", name="feedback_weight"),
        sa.CheckConstraint("origin IN ('dev', 'pack', 'learned', 'llm')", name="origin"),
    )
    op.create_index("ix_heuristics_tenant_domain", "heuristics", ["tenant", "domain"])
    op.create_index("ix_heuristics_tenant_updated_at", "heuristics", ["tenant", "updated_at"])

    op.create_table(
        "confidence_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("heuristic_id", sa.String(64), nullable=False),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("positive", sa.Boolean, nullable=False),
        sa.Column("magnitude", sa.Float, nullable=False),
        sa.Column("old_confidence", sa.Float, nullable=False),
        sa.Column("new_confidence", sa.Float, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.ForeignKeyConstraint(["tenant", "heuristic_id"], ["heuristics.tenant", "heuristics.id"], ondelete="CASCADE"),
    )
    op.create_index(
        "ix_confidence_events_tenant_heuristic",
        "confidence_events",
        ["tenant", "heuristic_id", "created_at"],
    )

    op.create_table(
        "decision_records",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("subject_id", sa.String(256), nullable=True),
        sa.Column("strategy", sa.String(64), nullable=True),
        sa.Column("path", sa.String(32), nullable=False),
        sa.Column("action", sa.Text, nullable=True),
        sa.Column("confidence", sa.Float, nullable=True),
        sa.Column("inputs", sa.JSON, nullable=False),
        sa.Column("prompt", sa.Text, nullable=True),
        sa.Column("raw_llm_output", sa.Text, nullable=True),
        sa.Column("model", sa.String(128), nullable=True),
        sa.Column("latency_ms", sa.Float, nullable=True),
        sa.Column("prompt_tokens", sa.Integer, nullable=True),
        sa.Column("completion_tokens", sa.Integer, nullable=True),
        sa.Column("reason", sa.String(256), nullable=True),
        sa.Column("outcome", sa.String(64), nullable=True),
        sa.Column("outcome_at", UTCDateTime, nullable=True),
        sa.Column("attributes", sa.JSON, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_decision_records_tenant_kind_created", "decision_records", ["tenant", "kind", "created_at"])
    op.create_index("ix_decision_records_tenant_subject", "decision_records", ["tenant", "subject_id"])
    op.create_index("ix_decision_records_created", "decision_records", ["created_at"])


def downgrade() -> None:
    op.drop_table("decision_records")
    op.drop_table("confidence_events")
    op.drop_table("heuristics")
