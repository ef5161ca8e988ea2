"""Hourly rollups of decision records for the dashboard.

- ``decision_rollups``: per tenant, hour (hours since the epoch, UTC), kind, path, outcome
  (``action`` for kinds whose action is a word, else '') and reason (proactive's block reason):
  decisions, LLM calls, tokens, decisions made without an LLM call.
- ``decision_latency_rollups``: per tenant, hour and kind, decisions per latency bucket.
- ``decision_rollup_marks``: per tenant, the hour up to which both are complete.
- ``ix_decision_records_rated``: the records with an outcome (rated by feedback), for the
  calibration page's reliability diagrams.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "decision_rollups",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("hour", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(32), primary_key=True),
        sa.Column("path", sa.String(32), primary_key=True),
        sa.Column("outcome", sa.String(64), primary_key=True),
        sa.Column("reason", sa.String(64), primary_key=True),
        sa.Column("decisions", sa.Integer(), nullable=False),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("prompt_tokens", sa.BigInteger(), nullable=False),
        sa.Column("completion_tokens", sa.BigInteger(), nullable=False),
        sa.Column("without_llm", sa.Integer(), nullable=False),
    )
    op.create_table(
        "decision_latency_rollups",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("hour", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(32), primary_key=True),
        sa.Column("bucket", sa.Integer(), primary_key=True),
        sa.Column("decisions", sa.Integer(), nullable=False),
    )
    op.create_table(
        "decision_rollup_marks",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("until_hour", sa.Integer(), nullable=False),
    )

    rated = sa.text("outcome IS NOT NULL")
    op.create_index(
        "ix_decision_records_rated",
        "decision_records",
        ["tenant", "kind", "created_at"],
        sqlite_where=rated,
        postgresql_where=rated,
    )


def downgrade() -> None:
    op.drop_index("ix_decision_records_rated", table_name="decision_records")
    op.drop_table("decision_rollup_marks")
    op.drop_table("decision_latency_rollups")
    op.drop_table("decision_rollups")
