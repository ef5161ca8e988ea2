"""The race loser asks no LLM: a cycle's slot is held while the first run decides.

- ``proactive_cycle_claims``: (tenant, user, cycle key) of a run deciding now; another run of the
  same slot stops before generating candidates. Released when the run ends; a send's row keeps
  the slot after that (``uq_proactive_sends_cycle``).

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "proactive_cycle_claims",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("cycle_key", sa.String(64), primary_key=True),
        sa.Column("claimed_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("proactive_cycle_claims")
