"""How many LLM calls a decision made, counted where it made them.

Each decision record says how many requests it sent to its LLM, rather than the A/B report
estimating calls from the decision's path. Records written before this migration have none (NULL):
the report counts them as unknown, not as zero calls made.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("decision_records", sa.Column("llm_calls", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("decision_records") as batch:
        batch.drop_column("llm_calls")
