"""A fire's recorded outcome (GLADyS's flight recorder), apart from what moves its confidence.

GLADyS's orchestrator records each fire (``RecordHeuristicFire``), later its outcome
(``UpdateFireOutcome``: success or fail, and who said so) and, separately, the learning signal
(``UpdateHeuristicConfidence``). The outcome is a record, not evidence: writing it into the
explicit-rating columns would count the same feedback twice. So it has columns of its own:

- ``heuristic_fires.outcome``: ``success`` / ``fail``; None while unknown (a pending fire);
- ``heuristic_fires.outcome_source`` and ``outcome_at``: who recorded it, and when;
- ``heuristic_fires.episodic_event_id``: the episodic memory event the caller links the fire to;
- ``heuristic_fires.implicit_positive``: what a confirming implicit outcome (an undo, a thanks or a
  complaint) said of the fire, so the heuristic's success and failure counts hold it until a rating
  replaces it.

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("heuristic_fires") as batch:
        batch.add_column(sa.Column("outcome", sa.String(16), nullable=True))
        batch.add_column(sa.Column("outcome_source", sa.String(64), nullable=True))
        batch.add_column(sa.Column("outcome_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("episodic_event_id", sa.String(256), nullable=True))
        batch.add_column(sa.Column("implicit_positive", sa.Boolean(), nullable=True))
    op.create_index("ix_heuristic_fires_tenant_fired", "heuristic_fires", ["tenant", "fired_at"])


def downgrade() -> None:
    op.drop_index("ix_heuristic_fires_tenant_fired", table_name="heuristic_fires")
    with op.batch_alter_table("heuristic_fires") as batch:
        batch.drop_column("implicit_positive")
        batch.drop_column("episodic_event_id")
        batch.drop_column("outcome_at")
        batch.drop_column("outcome_source")
        batch.drop_column("outcome")
