"""A transaction of point statements (a few rows by key each), each one hop to wherever it runs.

Seed 003's admission commits a run, its task, references, index-log entry, memory decision and
decision record, and sometimes supersedes or regroups a stored run: eight or so statements that
cost SQLite 5–10 µs each. Each ``execute`` here is one unit of synchronous SQLAlchemy work handed
to a runner in one go, carrying the inserts queued before it (and the first carries the BEGIN):

- on a SQLite file, the writer lane's thread (``sqlite_lanes``): one thread hop per unit, where
  the ``sqlite+aiosqlite`` dialect would cross to its thread four times per statement;
- elsewhere (PostgreSQL; an in-memory SQLite database), ``AsyncConnection.run_sync`` on a pooled
  connection.

Callers write the same Core statements either way, so both dialects run one code path above this.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import Executable
from sqlalchemy.sql.dml import Insert

__all__ = ["InsertBatch", "PointTransaction", "Runner", "Work", "execute", "on_connection"]

T = TypeVar("T")

InsertBatch = tuple[Insert, list[dict[str, Any]]]
Rows = tuple[list[tuple[Any, ...]], int]
Work = Callable[[Connection], None]


class Runner(Protocol):
    """Runs synchronous work on a connection inside the open transaction, and awaits it."""

    def __call__(self, work: Callable[[Connection], T], /) -> Awaitable[T]: ...


def on_connection(connection: AsyncConnection) -> Runner:
    """A runner for an async connection: its ``run_sync``."""

    def run(work: Callable[[Connection], T], /) -> Awaitable[T]:
        return connection.run_sync(work)

    return run


def execute(connection: Connection, statement: Executable, parameters: Mapping[str, Any]) -> Rows:
    """One statement: its rows (as tuples; none for a write) and its row count."""
    result = connection.execute(statement, parameters)
    return ([tuple(row) for row in result] if result.returns_rows else []), result.rowcount


def _insert(connection: Connection, batches: Sequence[InsertBatch]) -> None:
    for statement, rows in batches:
        connection.execute(statement, rows[0] if len(rows) == 1 else rows)


class PointTransaction:
    """The statements of one open point transaction (see ``Database.point_transaction``).

    Each ``execute`` is one unit of work; ``insert`` only queues its rows, which go with the next
    unit (before its statement, so it sees them) or with ``finish``. The transaction's ``begin``
    goes with the first unit and its ``commit`` with ``finish``: an admission that only inserts
    (ADD) is a single hop. A failure of queued rows surfaces at the unit that sent them, still
    inside the transaction, so it is all or nothing as before."""

    def __init__(self, run: Runner, *, begin: Work | None = None, commit: Work | None = None) -> None:
        self._run = run
        self._begin = begin
        self._commit = commit
        self._pending: list[InsertBatch] = []

    def _unit(self, work: Callable[[Connection], T]) -> Callable[[Connection], T]:
        begin, self._begin = self._begin, None
        pending, self._pending = self._pending, []

        def unit(connection: Connection) -> T:
            if begin is not None:
                begin(connection)
            _insert(connection, pending)
            return work(connection)

        return unit

    async def execute(self, statement: Executable, parameters: Mapping[str, Any]) -> Rows:
        """One statement (after the queued inserts): its rows (as tuples) and its row count."""
        return await self._run(self._unit(lambda connection: execute(connection, statement, parameters)))

    async def insert(self, batches: Sequence[InsertBatch]) -> None:
        """Queue INSERTs, each statement's rows sent as one ``executemany``, in order (rows may refer
        to earlier ones). Async for its callers' sake: nothing is sent until the next unit."""
        self._pending.extend(batches)

    async def finish(self) -> None:
        """Send what is still queued, and commit if this transaction commits itself."""
        commit = self._commit
        if commit is None and not self._pending and self._begin is None:
            return
        self._commit = None
        await self._run(self._unit(commit or _nothing))


def _nothing(_connection: Connection) -> None:
    return None
