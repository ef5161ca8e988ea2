"""Proactive controls and the outbox.

- A user can opt out of everything (``opted_out``) or of some categories
  (``opted_out_categories``), and be muted until a time (``muted_until``).
- A tenant can pause every proactive message (``proactive_tenants.paused``: the kill switch).
- A send is an outbox entry: ``attempts`` so far and ``next_attempt_at``, when a send still
  ``sending`` is retried (its lease: a worker that died after the commit leaves it there).
- ``proactive_counters``: per tenant and day, cycles by outcome (every block reason, sent), LLM
  calls and tokens, deliveries and feedback, counted even when blocked cycles are not recorded.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("proactive_users") as batch:
        batch.add_column(sa.Column("opted_out", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("opted_out_categories", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("muted_until", UTCDateTime(), nullable=True))
    with op.batch_alter_table("proactive_sends") as batch:
        batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("next_attempt_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("decision_id", sa.String(64), nullable=True))
    sending = sa.text("delivery_status = 'sending'")
    op.create_index(
        "ix_proactive_sends_outbox",
        "proactive_sends",
        ["next_attempt_at"],
        postgresql_where=sending,
        sqlite_where=sending,
    )
    op.create_table(
        "proactive_tenants",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.String(500), nullable=True),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "proactive_counters",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("name", sa.String(48), primary_key=True),
        sa.Column("value", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("proactive_counters")
    op.drop_table("proactive_tenants")
    op.drop_index("ix_proactive_sends_outbox", table_name="proactive_sends")
    with op.batch_alter_table("proactive_sends") as batch:
        batch.drop_column("decision_id")
        batch.drop_column("next_attempt_at")
        batch.drop_column("attempts")
    with op.batch_alter_table("proactive_users") as batch:
        batch.drop_column("muted_until")
        batch.drop_column("opted_out_categories")
        batch.drop_column("opted_out")
