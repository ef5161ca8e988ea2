"""A transaction of point statements (a few rows by key each), run the cheapest way the database allows.

Seed 003's admission commits a run, its task, references, index-log entry, memory decision and
decision record, and sometimes supersedes or regroups a stored run: eight or so statements that
cost SQLite 5–10 µs each. Through a pooled SQLAlchemy connection they cost ~140 µs each, and the
checkout, BEGIN and COMMIT another ~200 µs (measured on the 2-core VM). So:

- on a SQLite file, the transaction runs on the connector's own writer connection, under the
  database's writer lock: ``BEGIN IMMEDIATE`` (the write lock from the start, so the reads in it
  and its writes see one state), then each statement compiled once and run inline
  (``sqlite_statements``), then ``COMMIT``;
- elsewhere (PostgreSQL; an in-memory SQLite database, which a second connection would not see),
  on a pooled SQLAlchemy connection; in-memory SQLite still runs bindable statements directly on
  that connection's driver.

Callers write the same Core statements either way, so both dialects run one code path above this.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import Executable
from sqlalchemy.sql.dml import Insert

from phronesis.storage.sqlite_driver import SqliteConnection
from phronesis.storage.sqlite_statements import SqliteStatements, run_bound

__all__ = ["PointTransaction"]

InsertBatch = tuple[Insert, list[dict[str, Any]]]


class PointTransaction:
    """The statements of one open point transaction (see ``Database.point_transaction``)."""

    def __init__(
        self,
        *,
        connection: AsyncConnection | None,
        driver: SqliteConnection | None,
        statements: SqliteStatements | None,
    ) -> None:
        if connection is None and (driver is None or statements is None):
            raise ValueError("a point transaction needs a SQLAlchemy connection or a SQLite driver to run on")
        self._connection = connection
        self._driver = driver if statements is not None else None
        self._statements = statements

    async def execute(self, statement: Executable, parameters: Mapping[str, Any]) -> tuple[list[tuple[Any, ...]], int]:
        """One statement: its rows (as tuples) and its row count."""
        if self._driver is not None and self._statements is not None:
            done = await self._statements.execute(self._driver, statement, parameters)
            if done is not None:
                return done
        connection = self._fallback(statement)
        result = await connection.execute(statement, parameters)
        return ([tuple(row) for row in result] if result.returns_rows else []), result.rowcount

    async def insert(self, batches: Sequence[InsertBatch]) -> None:
        """INSERTs, each statement's rows as one ``executemany``, in order (rows may refer to earlier ones)."""
        pending: list[InsertBatch] = []  # the ones SQLAlchemy must run, sent together
        for statement, rows in batches:
            bound = None
            if self._driver is not None and self._statements is not None:
                bound = self._statements.bind_many(statement, rows)
            if bound is None:
                pending.append((statement, rows))
                continue
            if pending:
                await self._through_sqlalchemy(pending)
                pending = []
            assert self._driver is not None
            await run_bound(self._driver, bound, read=False)
        if pending:
            await self._through_sqlalchemy(pending)

    async def _through_sqlalchemy(self, batches: list[InsertBatch]) -> None:
        def send(sync: Connection) -> None:  # one greenlet crossing for all of them
            for statement, rows in batches:
                sync.execute(statement, rows[0] if len(rows) == 1 else rows)

        await self._fallback(batches[0][0]).run_sync(send)

    def _fallback(self, statement: Executable) -> AsyncConnection:
        if self._connection is None:
            # only this module's own writer has no SQLAlchemy connection: its statements are
            # phronesis's constants, each bindable (tests run them all on SQLite)
            raise TypeError(f"statement cannot run directly on SQLite: {statement}")
        return self._connection
