"""Documents added in the background (``POST /v1/documents/jobs``).

One request could otherwise buy unbounded work: a batch of documents split, embedded and stored
while the caller waits, stalling the tenant's other requests. A batch too large for one request is
a job: ``document_jobs`` keeps what it still has to store, how far it
got (committed with each chunk it stores) and which worker holds it until when.

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from phronesis.storage.types import UTCDateTime

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "document_jobs",
        sa.Column("tenant", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("documents", sa.JSON, nullable=False),
        sa.Column("document_ids", sa.JSON, nullable=False),
        sa.Column("documents_done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("passages_done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("lease_until", UTCDateTime, nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed', 'cancelled')", name="ck_document_jobs_status"
        ),
    )
    op.create_index("ix_document_jobs_tenant_created", "document_jobs", ["tenant", "created_at"])
    open_jobs = sa.text("status IN ('queued', 'running')")
    op.create_index(
        "ix_document_jobs_status_created_at",
        "document_jobs",
        ["status", "created_at"],
        postgresql_where=open_jobs,
        sqlite_where=open_jobs,
    )


def downgrade() -> None:
    op.drop_index("ix_document_jobs_status_created_at", table_name="document_jobs")
    op.drop_index("ix_document_jobs_tenant_created", table_name="document_jobs")
    op.drop_table("document_jobs")
