"""The learned noisy channel of implicit outcomes (``heuristics.channel``).

Per tenant, how often each implicit outcome (timeout, undo, ignore, thanks) followed a fire
whose standing explicit rating says it helped, or did not. The ``calibrated`` learning
strategy weighs each outcome by these counts; the others only record them.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "learning_channel",
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("outcome", sa.String(32), nullable=False),
        sa.Column("helped", sa.Boolean(), nullable=False),
        sa.Column("count", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("tenant", "outcome", "helped", name="pk_learning_channel"),
    )


def downgrade() -> None:
    op.drop_table("learning_channel")
