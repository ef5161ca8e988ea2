"""Conversations: what a routing session waits for, what tools say they do, which
document stands.

- ``routing_sessions.pending``: the tool call waiting for its arguments or a yes, or the
  question the user was asked (``routing.dialogue.Pending``); resolved by the next turn.
- ``routing_tools.read_only`` / ``confirm``: a read-only tool is never confirmed; a tool that
  must be confirmed asks once its arguments are complete.
- ``routing_documents.status``: ``current`` or ``superseded`` (an outdated price sheet kept
  for the record is not an answer while a current one exists).

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("routing_sessions") as batch:
        batch.add_column(sa.Column("pending", sa.JSON(), nullable=True))
    with op.batch_alter_table("routing_tools") as batch:
        batch.add_column(sa.Column("read_only", sa.Boolean(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("confirm", sa.Boolean(), nullable=False, server_default="0"))
    with op.batch_alter_table("routing_documents") as batch:
        batch.add_column(sa.Column("status", sa.String(16), nullable=False, server_default="current"))


def downgrade() -> None:
    with op.batch_alter_table("routing_documents") as batch:
        batch.drop_column("status")
    with op.batch_alter_table("routing_tools") as batch:
        batch.drop_column("confirm")
        batch.drop_column("read_only")
    with op.batch_alter_table("routing_sessions") as batch:
        batch.drop_column("pending")
