"""What users and tenants did about proactive messages, for the timeline.

- ``proactive_user_events``: a reply (its text, how it was read), an opt-out or opt-in, a mute
  or unmute, a pause or resume (``user_id`` NULL: the whole tenant); deleted with the user,
  purged with the other proactive tables.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "proactive_user_events",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=True),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("summary", sa.String(600), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant", "user_id"], ["proactive_users.tenant", "proactive_users.id"], ondelete="CASCADE"
        ),
    )
    op.create_index("ix_proactive_user_events_user_time", "proactive_user_events", ["tenant", "user_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_proactive_user_events_user_time", table_name="proactive_user_events")
    op.drop_table("proactive_user_events")
