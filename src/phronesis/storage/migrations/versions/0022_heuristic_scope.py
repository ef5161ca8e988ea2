"""A heuristic's scope: examples and counter-examples, and the event behind each fire.

- ``heuristic_examples``: situations a heuristic applies to (``kind = example``) and situations
  near them it does not (``counter``), given (creation, import, the API) or learned from
  feedback; searched beside the conditions (change-feed collection ``examples``). Deleted with
  their heuristic. Where pgvector is installed, ``migrate.upgrade`` adds its vector column at head.
- ``heuristic_fires.event_text`` / ``event_embedding``: the event that caused the fire, so a
  negative outcome can be told apart: a wrong match teaches a counter-example, a wrong action
  lowers the confidence. Fires recorded before have neither (taken as the action's fault).
- ``heuristic_fires.probation_of``: a probation fire's undo (its signal key), taken back if the
  fire goes well (``executive.recovery``).

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import EmbeddingBytes, UTCDateTime

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "heuristic_examples",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("heuristic_id", sa.String(64), nullable=False),
        sa.Column("domain", sa.String(128), nullable=False, server_default=""),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("taught_by", sa.String(32), nullable=True),
        sa.Column("event_id", sa.String(256), nullable=True),
        sa.Column("fire_id", sa.String(64), nullable=True),
        sa.Column("embedding", EmbeddingBytes(), nullable=True),
        sa.Column("embedding_model", sa.String(128), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.CheckConstraint("kind IN ('example', 'counter')", name="kind"),
        sa.CheckConstraint("origin IN ('given', 'learned')", name="origin"),
        sa.ForeignKeyConstraint(
            ["tenant", "heuristic_id"], ["heuristics.tenant", "heuristics.id"], ondelete="CASCADE"
        ),
    )
    op.create_index(
        "ix_heuristic_examples_tenant_heuristic",
        "heuristic_examples",
        ["tenant", "heuristic_id", "kind", "created_at"],
    )
    with op.batch_alter_table("heuristic_fires") as batch:
        batch.add_column(sa.Column("event_text", sa.Text(), nullable=True))
        batch.add_column(sa.Column("event_embedding", EmbeddingBytes(), nullable=True))
        batch.add_column(sa.Column("probation_of", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("heuristic_fires") as batch:
        batch.drop_column("probation_of")
        batch.drop_column("event_embedding")
        batch.drop_column("event_text")
    op.drop_index("ix_heuristic_examples_tenant_heuristic", table_name="heuristic_examples")
    op.drop_table("heuristic_examples")
