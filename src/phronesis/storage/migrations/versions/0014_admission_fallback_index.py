"""An index over admission decisions' stage and rule, so ``/metrics`` counts the
fallbacks (the fail-safe's decisions and repaired answers) without reading every decision.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_admission_memory_decisions_stage", "admission_memory_decisions", ["stage", "rule"])


def downgrade() -> None:
    op.drop_index("ix_admission_memory_decisions_stage", table_name="admission_memory_decisions")
