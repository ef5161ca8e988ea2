"""Conservation: what each proactive signal became when a cycle used it, and why.

- ``proactive_signals.outcome``: sent, folded, deferred, duplicate, suppressed, opted_out,
  below_threshold, no_candidate or context (``proactive.fates``); NULL while it waits.
- ``outcome_reason``: one line for a person; ``outcome_ref``: the send, the deferred insight or
  the decision record it ended in.

Signals used before this revision keep a NULL outcome and read as ``used``.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("proactive_signals") as batch:
        batch.add_column(sa.Column("outcome", sa.String(32), nullable=True))
        batch.add_column(sa.Column("outcome_reason", sa.String(512), nullable=True))
        batch.add_column(sa.Column("outcome_ref", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("proactive_signals") as batch:
        batch.drop_column("outcome_ref")
        batch.drop_column("outcome_reason")
        batch.drop_column("outcome")
