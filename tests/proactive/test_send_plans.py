"""The sends a tick reads come from their partial indexes, not from a tenant's whole history.

A month of 400 users ticked slower every day: the outbox's due sends, the sends waiting for
feedback (a reply's lookup, the sweep, the tick's list of tenants) each walked every send a tenant
had ever made (migration 0027). The plans are SQLite's own (``EXPLAIN QUERY PLAN``) for the
statements the repository really issues.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from phronesis.proactive.sends import SendRepository
from phronesis.storage.database import Database

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


async def _plans(path: Path, read: Callable[[SendRepository, Any], Awaitable[object]]) -> list[str]:
    """SQLite's plan for every statement ``read`` issues."""
    database = Database(f"sqlite+aiosqlite:///{path}")
    issued: list[tuple[str, Any]] = []

    def capture(conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
        # the listener is on every engine of the process: keep this database's statements only (a
        # test sharing the worker process may still be running another database's)
        if conn.engine.url.database == str(path):
            issued.append((statement, params))

    event.listen(Engine, "before_cursor_execute", capture)  # the read engine and the write engine
    try:
        async with database.connect() as conn:
            await read(SendRepository(database), conn)
    finally:
        event.remove(Engine, "before_cursor_execute", capture)
        await database.dispose()
    with sqlite3.connect(path) as raw:
        return [
            " ".join(str(row[3]) for row in raw.execute(f"EXPLAIN QUERY PLAN {statement}", params))
            for statement, params in issued
            if statement.lstrip().upper().startswith(("SELECT", "UPDATE"))
        ]


@pytest.fixture
def migrated(sqlite_template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "plans.db"
    shutil.copyfile(sqlite_template, path)
    return path


async def test_a_reply_finds_the_users_waiting_sends_by_their_index(migrated: Path) -> None:
    [plan] = await _plans(migrated, lambda sends, conn: sends.pending(conn, "t", "ana"))
    assert "ix_proactive_sends_pending (tenant=? AND user_id=?)" in plan


async def test_the_outbox_reads_a_tenants_sends_in_delivery_by_their_index(migrated: Path) -> None:
    [plan] = await _plans(
        migrated,
        lambda sends, conn: sends.outbox_due(conn, NOW, "t", stale_before=NOW - timedelta(minutes=5), limit=50),
    )
    assert "ix_proactive_sends_sending (tenant=?)" in plan


async def test_the_tick_lists_tenants_with_waiting_sends_without_reading_every_send(migrated: Path) -> None:
    [plan] = await _plans(migrated, lambda sends, conn: sends.tenants_with_pending(conn))
    assert "INDEX ix_proactive_sends_pending" in plan  # the few waiting, not the whole table
