"""Example requests on routing tools, to choose the tool a USE_TOOL query means.

Tools registered before this migration have none (NULL, read as an empty list): they are
matched by their name and description alone until re-registered with examples.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("routing_tools", sa.Column("examples", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("routing_tools") as batch:
        batch.drop_column("examples")
