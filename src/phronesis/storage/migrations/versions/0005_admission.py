"""Admission (seed 003): runs, their tasks, references and artifacts, memory decisions, the index log.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import EmbeddingBytes, UTCDateTime

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def _run_fk() -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tenant", "run_id"], ["admission_runs.tenant", "admission_runs.id"], ondelete="CASCADE"
    )


def _value_table(name: str) -> None:
    op.create_table(
        name,
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("value", sa.String(512), primary_key=True),
        _run_fk(),
    )
    op.create_index(f"ix_{name}_value", name, ["tenant", "value"])


def upgrade() -> None:
    op.create_table(
        "admission_tasks",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "admission_runs",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("agent_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=False, server_default=""),
        sa.Column("task_id", sa.String(64), nullable=False),
        sa.Column("task", sa.Text, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("summary_source", sa.String(16), nullable=False),
        sa.Column("outcome", sa.String(8), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("embedding", EmbeddingBytes, nullable=False),
        sa.Column("embedding_model", sa.String(128), nullable=False),
        sa.Column("status", sa.String(12), nullable=False, server_default="active"),
        sa.Column("superseded_by", sa.String(64), nullable=True),
        sa.Column("superseded_at", UTCDateTime, nullable=True),
        sa.Column("merge_group", sa.String(64), nullable=True),
        sa.Column("canonical", sa.Boolean, nullable=False, server_default="1"),
        sa.Column("usage_count", sa.Integer, nullable=False, server_default="1"),
        sa.Column("duplicate_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("attributes", sa.JSON, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.CheckConstraint("outcome IN ('success', 'failure', 'partial')", name="outcome"),
        sa.CheckConstraint("status IN ('active', 'superseded')", name="status"),
        sa.UniqueConstraint("tenant", "agent_id", "user_id", "content_hash", name="uq_admission_runs_content"),
    )
    op.create_index("ix_admission_runs_scope_task", "admission_runs", ["tenant", "agent_id", "user_id", "task_id"])
    op.create_index("ix_admission_runs_group", "admission_runs", ["tenant", "merge_group"])
    _value_table("admission_run_references")
    _value_table("admission_run_artifacts")
    op.create_table(
        "admission_memory_decisions",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("agent_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=False, server_default=""),
        sa.Column("decision", sa.String(8), nullable=False),
        sa.Column("target_run_id", sa.String(64), nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("similarity", sa.Float, nullable=True),
        sa.Column("stage", sa.String(16), nullable=False),
        sa.Column("rule", sa.String(64), nullable=True),
        sa.Column("similar_runs", sa.JSON, nullable=False),
        sa.Column("batch_id", sa.String(64), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.CheckConstraint("decision IN ('ADD', 'NOT', 'REPLACE', 'MERGE')", name="decision"),
    )
    op.create_index("ix_admission_memory_decisions_created", "admission_memory_decisions", ["tenant", "created_at"])
    op.create_index("ix_admission_memory_decisions_run", "admission_memory_decisions", ["tenant", "run_id"])
    op.create_table(
        "admission_index_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("op", sa.String(8), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.CheckConstraint("op IN ('add', 'remove')", name="op"),
    )
    op.create_table(
        "admission_calibrations",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("duplicate_threshold", sa.Float, nullable=False),
        sa.Column("details", sa.JSON, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "admission_calibrations",
        "admission_index_log",
        "admission_memory_decisions",
        "admission_run_artifacts",
        "admission_run_references",
        "admission_runs",
        "admission_tasks",
    ):
        op.drop_table(table)
