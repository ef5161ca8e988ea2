"""A tenant setting that is a name, not a number (Apply of a replayed strategy).

- ``tenant_settings.choice``: the applied name of a choice setting (``executive.strategy``:
  heuristic_first, urgency_tiered or always_llm); NULL for a number, or for the configured one.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tenant_settings") as batch:
        batch.add_column(sa.Column("choice", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tenant_settings") as batch:
        batch.drop_column("choice")
