"""Routing (seed 002): sessions, their messages and tool outcomes, tools, documents, fitted routers.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import EmbeddingBytes, UTCDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _session_fk() -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tenant", "session_id"], ["routing_sessions.tenant", "routing_sessions.id"], ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "routing_sessions",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("mode", sa.String(8), nullable=False, server_default="auto"),
        sa.Column("lead_context", sa.JSON, nullable=False),
        sa.Column("retrieved_sources", sa.JSON, nullable=False),
        sa.Column("message_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("tool_calls", sa.Integer, nullable=False, server_default="0"),
        sa.Column("tool_failures", sa.Integer, nullable=False, server_default="0"),
        sa.Column("clarifications", sa.Integer, nullable=False, server_default="0"),
        sa.Column("escalation_reason", sa.String(64), nullable=True),
        sa.Column("escalated_at", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.CheckConstraint("mode IN ('auto', 'human')", name="mode"),
    )
    op.create_table(
        "routing_messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("decision_id", sa.String(64), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        _session_fk(),
        sa.CheckConstraint("role IN ('user', 'assistant', 'human_agent', 'system')", name="role"),
    )
    op.create_index("ix_routing_messages_tenant_session", "routing_messages", ["tenant", "session_id", "id"])
    op.create_table(
        "routing_tool_outcomes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("tool", sa.String(64), nullable=False),
        sa.Column("success", sa.Boolean, nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("decision_id", sa.String(64), nullable=True),
        sa.Column("next_action", sa.String(32), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        _session_fk(),
    )
    op.create_index(
        "ix_routing_tool_outcomes_tenant_session", "routing_tool_outcomes", ["tenant", "session_id", "tool"]
    )
    op.create_table(
        "routing_tools",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("parameters", sa.JSON, nullable=False),
        sa.Column("critical", sa.Boolean, nullable=False, server_default="0"),
        sa.Column("retry_allowed", sa.Boolean, nullable=False, server_default="1"),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "routing_documents",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("doc_type", sa.String(32), nullable=False),
        sa.Column("title", sa.String(300), nullable=False, server_default=""),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("embedding", EmbeddingBytes, nullable=False),
        sa.Column("embedding_model", sa.String(128), nullable=False),
        sa.Column("published_at", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("attributes", sa.JSON, nullable=False),
    )
    op.create_index("ix_routing_documents_tenant_created", "routing_documents", ["tenant", "created_at"])
    op.create_table(
        "routing_routers",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("details", sa.JSON, nullable=False),
        sa.Column("weights", sa.LargeBinary, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "routing_routers",
        "routing_documents",
        "routing_tools",
        "routing_tool_outcomes",
        "routing_messages",
        "routing_sessions",
    ):
        op.drop_table(table)
