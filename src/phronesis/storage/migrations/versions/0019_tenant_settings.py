"""A tenant's applied settings ("Apply" from a replay or ``phronesis tune``).

- ``tenant_settings``: per tenant and setting name, the applied value (NULL: the server's
  configured value again) and the decision record of its last change.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tenant_settings",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("decision_id", sa.String(64), nullable=True),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tenant_settings")
