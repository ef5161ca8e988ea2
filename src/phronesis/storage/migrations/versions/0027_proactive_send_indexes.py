"""Indexes that keep a proactive tick's cost flat as the history grows.

A month of 400 users (``benchmarks/bench_proactive_month.py``) ticked slower every day: three reads
walked every send a tenant had ever made: the outbox's due sends (by tenant), the sends waiting for
feedback (the sweep, a reply's lookup, the tick's list of tenants). Two partial indexes hold only
the few rows those reads want:

- ``ix_proactive_sends_sending`` (tenant, sent_at) where the send is still being delivered;
- ``ix_proactive_sends_pending`` (tenant, user_id, sent_at) where its feedback is still pending.

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    sending = sa.text("delivery_status = 'sending'")
    op.create_index(
        "ix_proactive_sends_sending",
        "proactive_sends",
        ["tenant", "sent_at"],
        postgresql_where=sending,
        sqlite_where=sending,
    )
    pending = sa.text("outcome = 'pending'")
    op.create_index(
        "ix_proactive_sends_pending",
        "proactive_sends",
        ["tenant", "user_id", "sent_at"],
        postgresql_where=pending,
        sqlite_where=pending,
    )


def downgrade() -> None:
    op.drop_index("ix_proactive_sends_pending", table_name="proactive_sends")
    op.drop_index("ix_proactive_sends_sending", table_name="proactive_sends")
