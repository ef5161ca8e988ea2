"""Alembic environment: migrations run on a connection that ``phronesis.storage.migrate`` hands in."""

from alembic import context

from phronesis.storage.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations with `phronesis db upgrade` (phronesis.storage.migrate)")

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
