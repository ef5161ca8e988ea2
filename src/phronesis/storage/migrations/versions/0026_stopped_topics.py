"""Scoped stopping: a reply stops what it names, and an ignored type mutes only itself.

- ``proactive_users.opted_out_topics``: the words a user stopped ("weather", "bill"), each with
  when it ends (an ISO time for a mute, null for an opt-out);
- ``proactive_suppressions.category`` becomes ``topic`` (80 characters): what feedback switched
  off is a signal type (``type:weather_alert``) when the ignored messages had one, the category
  only for messages no signal type stood behind. Rows already there keep their category as topic;
- ``proactive_users.opted_in_topics``: topics the user asked for again while the rest stays off
  ("start sending me weather again" after "stop"): an exception to an opt-out of everything or
  of a category;
- ``proactive_signals.retry_at``: a signal deferred at night while its moment is after the user's
  wake waits, unused, until then (the wake-time retry); null: no wait.

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("proactive_users") as batch:
        batch.add_column(sa.Column("opted_out_topics", sa.JSON, nullable=True))
        batch.add_column(sa.Column("opted_in_topics", sa.JSON, nullable=True))
    with op.batch_alter_table("proactive_signals") as batch:
        batch.add_column(sa.Column("retry_at", UTCDateTime, nullable=True))
    with op.batch_alter_table("proactive_suppressions") as batch:
        batch.alter_column(
            "category",
            new_column_name="topic",
            existing_type=sa.String(32),
            type_=sa.String(80),
            existing_nullable=False,
        )


def downgrade() -> None:
    op.execute("DELETE FROM proactive_suppressions WHERE topic LIKE 'type:%'")
    with op.batch_alter_table("proactive_suppressions") as batch:
        batch.alter_column(
            "topic",
            new_column_name="category",
            existing_type=sa.String(80),
            type_=sa.String(32),
            existing_nullable=False,
        )
    with op.batch_alter_table("proactive_signals") as batch:
        batch.drop_column("retry_at")
    with op.batch_alter_table("proactive_users") as batch:
        batch.drop_column("opted_in_topics")
        batch.drop_column("opted_out_topics")
