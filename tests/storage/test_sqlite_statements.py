"""Statements compiled once for SQLite send exactly what SQLAlchemy would send, read back what
SQLAlchemy would return, and refuse (None) what they cannot bind exactly."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Column, Engine, Integer, MetaData, String, Table, bindparam, create_engine, event, insert, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.sql.elements import ClauseElement

from phronesis.admission import run_repository as runs
from phronesis.admission.memory_decisions import _INSERT as INSERT_MEMORY_DECISION
from phronesis.audit.repository import _INSERT as INSERT_DECISION_RECORD
from phronesis.storage import sqlite_statements
from phronesis.storage.sqlite_statements import SqliteStatements
from phronesis.storage.tables import metadata

text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
ids = st.lists(text, min_size=1, max_size=5)
moments = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))
vectors = st.lists(st.floats(-1, 1, width=32), min_size=4, max_size=4).map(lambda v: np.array(v, dtype=np.float32))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    """SQLAlchemy's own SQLite dialect over an in-memory database with the real schema."""
    engine = create_engine("sqlite://")
    metadata.create_all(engine)
    yield engine
    engine.dispose()


def sent_by_sqlalchemy(engine: Engine, statement: ClauseElement, parameters: Any) -> tuple[str, list[list[Any]]]:
    """What SQLAlchemy hands the driver for this execution (run in a transaction rolled back after)."""
    seen: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, sql: str, params: Any, _context: Any, many: bool) -> None:
        seen.append((sql, params if many else [params]))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        with engine.connect() as conn:
            conn.execute(statement, parameters)
            conn.rollback()
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    sql, params = seen[0]
    return sql, [list(p) for p in params]


def run_row(run_id: str, when: datetime, vector: np.ndarray, attributes: Any, canonical: bool) -> dict[str, Any]:
    return {
        "tenant": "t",
        "id": run_id,
        "agent_id": "a",
        "user_id": "",
        "task_id": "task",
        "task": "a task",
        "summary": "a summary",
        "summary_source": "caller",
        "outcome": "success",
        "content_hash": f"hash-{run_id}",
        "embedding": vector,
        "embedding_model": "m",
        "status": "active",
        "superseded_by": None,
        "superseded_at": None,
        "merge_group": None,
        "canonical": canonical,
        "usage_count": 1,
        "duplicate_count": 0,
        "attributes": attributes,
        "created_at": when,
        "updated_at": when,
    }


def assert_same(direct: Sequence[Any], reference: Sequence[Any]) -> None:
    assert len(direct) == len(reference)
    for ours, theirs in zip(direct, reference, strict=True):
        if isinstance(theirs, np.ndarray):
            assert isinstance(ours, np.ndarray) and ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
        else:
            assert type(ours) is type(theirs) and ours == theirs


@settings(max_examples=60, deadline=None)
@given(tenant=text, agent=text, user=text, hashes=ids, described=ids, after=st.integers(0, 10**9))
def test_reads_send_what_sqlalchemy_sends(
    engine: Engine, tenant: str, agent: str, user: str, hashes: list[str], described: list[str], after: int
) -> None:
    statements = SqliteStatements(engine.dialect)
    cases: list[tuple[ClauseElement, Mapping[str, Any]]] = [
        (runs._BY_CONTENT, {"tenant": tenant, "agent_id": agent, "user_id": user, "hashes": hashes}),
        (runs._STORED, {"tenant": tenant, "ids": hashes, "described": described}),
        (runs._LOG_SINCE, {"after": after, "limit": 10}),
    ]
    for statement, parameters in cases:
        bound = statements.bind(statement, parameters)
        assert bound is not None
        assert (bound.sql, bound.parameters) == sent_by_sqlalchemy(engine, statement, parameters)


@settings(max_examples=60, deadline=None)
@given(
    when=moments,
    vector=vectors,
    attributes=json_values,
    canonical=st.booleans(),
    group=st.none() | text,
    rows=st.integers(1, 4),
)
def test_writes_send_what_sqlalchemy_sends(
    engine: Engine,
    when: datetime,
    vector: np.ndarray,
    attributes: Any,
    canonical: bool,
    group: str | None,
    rows: int,
) -> None:
    statements = SqliteStatements(engine.dialect)
    many = [run_row(f"r{i}", when, vector, attributes, canonical) for i in range(rows)]
    bound = statements.bind_many(runs._INSERT_RUN, many)
    assert bound is not None
    sql, sent = sent_by_sqlalchemy(engine, runs._INSERT_RUN, many if rows > 1 else many[0])
    assert bound.sql == sql
    assert bound.parameters == sent
    updates: list[tuple[ClauseElement, Mapping[str, Any]]] = [
        (runs._SUPERSEDE, {"w_tenant": "t", "w_id": "r0", "by": "r1", "at": when}),
        (runs._SET_CANONICAL, {"w_tenant": "t", "w_id": "r0", "at": when, "canonical": canonical}),
        (runs._SET_MERGE_STATE, {"w_tenant": "t", "w_id": "r0", "at": when, "canonical": canonical, "group": group}),
        (runs._COUNT_DUPLICATE, {"w_tenant": "t", "w_id": "r0", "at": when}),
    ]
    for statement, parameters in updates:
        one = statements.bind(statement, parameters)
        assert one is not None
        assert (one.sql, one.parameters) == sent_by_sqlalchemy(engine, statement, parameters)


def test_the_decision_inserts_bind_every_column(engine: Engine) -> None:
    """The admission's own inserts leave nothing to a column default, so they never fall back."""
    statements = SqliteStatements(engine.dialect)
    for statement in (INSERT_MEMORY_DECISION, INSERT_DECISION_RECORD):
        row = {column.name: None for column in statement.table.columns}  # type: ignore[attr-defined]
        assert statements.bind_many(statement, [row]) is not None


@settings(max_examples=40, deadline=None)
@given(when=moments, vector=vectors, attributes=json_values, canonical=st.booleans())
def test_rows_read_back_as_sqlalchemy_returns_them(
    engine: Engine, when: datetime, vector: np.ndarray, attributes: Any, canonical: bool
) -> None:
    statements = SqliteStatements(engine.dialect)
    with engine.connect() as conn:
        conn.execute(insert(metadata.tables["admission_runs"]), run_row("r0", when, vector, attributes, canonical))
        conn.execute(
            insert(metadata.tables["index_changes"]),
            {"collection": "runs", "tenant": "t", "key": "r0", "op": "add", "created_at": when},
        )
        for statement, parameters in (
            (runs._LOG_SINCE, {"after": 0, "limit": 10}),
            (runs._ACTIVE_FOR_UPDATE, {"tenant": "t", "run_id": "r0"}),
        ):
            reference = [tuple(row) for row in conn.execute(statement, parameters)]
            bound = statements.bind(statement, parameters)
            assert bound is not None
            raw = conn.connection.driver_connection
            assert raw is not None
            direct = statements.decode(statement, raw.execute(bound.sql, bound.parameters[0]).fetchall())
            assert len(direct) == len(reference) == 1
            assert_same(direct[0], reference[0])
        conn.rollback()


def test_what_cannot_be_bound_exactly_is_left_to_sqlalchemy(engine: Engine) -> None:
    table = Table("defaults", MetaData(), Column("id", String, primary_key=True), Column("n", Integer, default=5))
    statements = SqliteStatements(engine.dialect)
    assert statements.bind_many(insert(table), [{"id": "a"}]) is None  # n comes from a Python-side default
    assert statements.bind_many(insert(table), [{"id": "a", "n": 1}]) is not None
    assert statements.bind_many(insert(table), [{"id": "a", "n": 1}, {"id": "b"}]) is None  # rows differ
    empty = {"tenant": "t", "agent_id": "a", "user_id": "", "hashes": []}
    assert statements.bind(runs._BY_CONTENT, empty) is None  # an empty IN is SQLAlchemy's special case
    computed = select(table.c.id).where(table.c.n == bindparam("n", callable_=lambda: 3))
    assert statements.bind(computed, {}) is None


def test_only_sqlite_dialects_are_accepted() -> None:
    with pytest.raises(ValueError, match="SQLite"):
        SqliteStatements(postgresql.dialect())


def test_statements_built_per_call_do_not_grow_the_cache(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_statements, "CACHE_SIZE", 8)
    statements = SqliteStatements(engine.dialect)
    table = metadata.tables["admission_tasks"]
    for i in range(50):
        bound = statements.bind(select(table.c.id).where(table.c.id == bindparam("id")), {"id": str(i)})
        assert bound is not None and bound.parameters == [[str(i)]]
    assert len(statements._layouts) <= 8 and len(statements._compiled) <= 8
