"""Indexes for taking runs out: the runs a deleted run had superseded, found by key;
the runs past retention, found without reading every run.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26
"""

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_admission_runs_superseded_by", "admission_runs", ["tenant", "superseded_by"])
    op.create_index("ix_admission_runs_superseded_at", "admission_runs", ["status", "superseded_at"])


def downgrade() -> None:
    op.drop_index("ix_admission_runs_superseded_at", table_name="admission_runs")
    op.drop_index("ix_admission_runs_superseded_by", table_name="admission_runs")
