"""Inserts queued during a transaction and sent together.

Each ``AsyncConnection.execute`` is a round trip through SQLAlchemy's greenlet bridge, and
a decision writes several rows (seed 003's admission: task, run, references, index log,
memory decision, decision record). Queued here, one ``flush`` sends them together
(``PointTransaction.insert``: straight to the driver on SQLite, one bridge crossing otherwise),
and a batch's rows for the same table as one ``executemany`` instead of one statement per row.

Only INSERTs are queued, and rows keep the order they were added in (statements in the
order first seen; a statement's rows in order), so rows referring to earlier rows (a run's
references, its task) land after them. Anything that must see the queued rows (a read, an
UPDATE) calls ``flush`` first.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.sql.dml import Insert

from phronesis.storage.point_transaction import PointTransaction

__all__ = ["WriteBuffer"]


class WriteBuffer:
    def __init__(self) -> None:
        self._rows: dict[Insert, list[dict[str, Any]]] = {}

    def insert(self, statement: Insert, *rows: dict[str, Any]) -> None:
        if rows:
            self._rows.setdefault(statement, []).extend(rows)

    async def flush(self, transaction: PointTransaction) -> None:
        """Send everything queued, in ``transaction``."""
        if not self._rows:
            return
        queued, self._rows = list(self._rows.items()), {}
        await transaction.insert(queued)
