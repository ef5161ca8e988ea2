"""pgvector's HNSW indexes with m=24 (was 32), searched at ef_search 50 (was 100).

At 1M vectors the m=32 graph needed ef_search 100 to find 99 % of the matches >= 0.7, at a p99
of 12 ms; the m=24 graph finds 99.5 % at ef_search 50 with a p99 under 9 ms
(``storage.pgvector.HNSW_M``). An index built by an earlier version is rebuilt here, so the new
default search breadth meets the graph it was measured on. On SQLite, or without pgvector,
nothing changes.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26
"""

from alembic import op

from phronesis.storage.migrations.frozen import rebuild_other_graphs

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


TABLES = ("heuristics", "admission_runs", "routing_passages")
"""The tables searched with pgvector at this revision (later revisions add theirs)."""


def upgrade() -> None:
    rebuild_other_graphs(op.get_bind(), TABLES)


def downgrade() -> None:
    """The m=24 graph serves the earlier version as well: nothing to undo."""
