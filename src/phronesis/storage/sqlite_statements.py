"""SQLAlchemy Core statements compiled once for SQLite and bound straight to sqlite3's parameters.

A statement through ``AsyncConnection.execute`` costs about 140 µs of Python on a 2-core VM
(greenlet bridge, cache key, execution context, result wrapping) where SQLite spends 5–10 µs
running it; seed 003's admission runs eight or nine of them, so SQLAlchemy, not SQLite, was
most of its database time. The statements are still built with Core, once, at import;
here each is compiled once per shape (an INSERT's columns, the lengths of its ``IN`` lists)
into its SQL text and a positional layout, and every later call only lays the values out
and applies the same bind and result processors SQLAlchemy would (dates as text, JSON,
booleans, embeddings).

A statement this cannot bind exactly (an INSERT whose rows leave a column to a Python-side
default, an empty ``IN`` list) is refused with ``None``, and the caller runs it through
SQLAlchemy as before: the direct path is an optimisation, never a second meaning.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exc
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import Executable
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.elements import ClauseElement
from sqlalchemy.sql.selectable import SelectBase

from phronesis.storage.sqlite_driver import SqliteConnection

__all__ = ["Bound", "SqliteStatements", "run_bound"]

Processor = Callable[[Any], Any]

CACHE_SIZE = 1024
"""Compiled layouts kept: the hot statements' shapes, with room to spare."""


@dataclass(frozen=True, slots=True)
class Bound:
    """A statement ready for sqlite3: its SQL and one positional parameter list per execution."""

    sql: str
    parameters: list[list[Any]]


@dataclass(frozen=True, slots=True)
class _Slot:
    """Where one ``?`` takes its value from: a named parameter, an element of an ``IN`` list,
    or the statement itself (a literal's or a default's value)."""

    name: str
    element: int | None
    constant: Any
    given: bool
    processor: Processor | None


@dataclass(frozen=True, slots=True)
class _Layout:
    sql: str
    slots: tuple[_Slot, ...]

    def values(self, parameters: Mapping[str, Any]) -> list[Any]:
        out = []
        for slot in self.slots:
            if not slot.given:
                value = slot.constant
            elif slot.element is None:
                value = parameters[slot.name]
            else:
                value = parameters[slot.name][slot.element]
            # processors see None too: JSON stores it as 'null', as SQLAlchemy does
            out.append(value if slot.processor is None else slot.processor(value))
        return out


class SqliteStatements:
    """The compiled layouts of the statements seen so far, by statement and shape."""

    def __init__(self, dialect: Dialect) -> None:
        if dialect.name != "sqlite" or dialect.paramstyle != "qmark":
            raise ValueError(f"SqliteStatements compiles for SQLite's qmark parameters, not {dialect.name!r}")
        self._dialect = dialect
        # keyed by the statement's identity and shape; each entry keeps its statement alive, so an
        # id is never reused by another statement while its layout is cached
        self._compiled: dict[tuple[Any, ...], tuple[ClauseElement, SQLCompiler | None, tuple[str, ...]]] = {}
        self._layouts: dict[tuple[Any, ...], tuple[ClauseElement, _Layout | None]] = {}
        self._decoders: dict[int, tuple[ClauseElement, tuple[Processor | None, ...] | None]] = {}

    def bind(self, statement: ClauseElement, parameters: Mapping[str, Any]) -> Bound | None:
        """One execution of ``statement`` (a SELECT, UPDATE, DELETE or single-row INSERT), or None."""
        layout = self._layout(statement, parameters)
        return None if layout is None else Bound(layout.sql, [layout.values(parameters)])

    def bind_many(self, statement: Insert, rows: Sequence[Mapping[str, Any]]) -> Bound | None:
        """An INSERT of ``rows`` (all with the same keys) as one ``executemany``, or None."""
        if not rows:
            return None
        layout = self._layout(statement, rows[0])
        if layout is None:
            return None
        keys = rows[0].keys()
        if any(row.keys() != keys for row in rows):
            return None  # SQLAlchemy would fill the gaps with defaults; let it
        return Bound(layout.sql, [layout.values(row) for row in rows])

    async def execute(
        self, driver: SqliteConnection, statement: Executable, parameters: Mapping[str, Any]
    ) -> tuple[list[tuple[Any, ...]], int] | None:
        """Run ``statement`` on ``driver``: its rows (decoded) and row count; None, having run
        nothing, when it cannot be bound exactly (the caller runs it through SQLAlchemy)."""
        if not isinstance(statement, ClauseElement) or (bound := self.bind(statement, parameters)) is None:
            return None
        rows, count = await run_bound(driver, bound, read=isinstance(statement, SelectBase))
        return self.decode(statement, rows), count

    def decode(self, statement: ClauseElement, rows: list[Any]) -> list[tuple[Any, ...]]:
        """Result rows as SQLAlchemy would return them (its result processors applied)."""
        entry = self._decoders.get(id(statement))
        if entry is None:
            self._bounded(self._decoders)
            entry = self._decoders[id(statement)] = (statement, self._result_processors(statement))
        processors = entry[1]
        if processors is None:
            return rows
        return [
            tuple(value if p is None else p(value) for p, value in zip(processors, row, strict=True)) for row in rows
        ]

    # ---- compiling ----------------------------------------------------------------------

    def _layout(self, statement: ClauseElement, parameters: Mapping[str, Any]) -> _Layout | None:
        columns = tuple(parameters) if isinstance(statement, Insert) else ()
        compiled = self._compiled.get((id(statement), columns))
        if compiled is None:
            self._bounded(self._compiled)
            compiled = self._compiled[(id(statement), columns)] = (statement, *self._compile(statement, columns))
        _, compiler, expanding = compiled
        if compiler is None:
            return None
        # an IN list's length is part of the SQL (one ? per element)
        lengths = tuple(len(parameters.get(name) or ()) for name in expanding)
        key = (id(statement), columns, lengths)
        entry = self._layouts.get(key)
        if entry is None:
            self._bounded(self._layouts)
            entry = self._layouts[key] = (statement, self._lay_out(compiler, statement, parameters))
        return entry[1]

    @staticmethod
    def _bounded(cache: dict[Any, Any]) -> None:
        """Callers pass statements built once (module constants); a statement built per call would
        only be compiled again each time, and this keeps such misuse from growing without bound."""
        if len(cache) >= CACHE_SIZE:
            cache.clear()

    def _compile(
        self, statement: ClauseElement, columns: tuple[str, ...]
    ) -> tuple[SQLCompiler | None, tuple[str, ...]]:
        compiled = statement.compile(dialect=self._dialect, column_keys=list(columns) if columns else None)
        if not isinstance(compiled, SQLCompiler):
            return None, ()
        return compiled, tuple(name for name, bind in compiled.binds.items() if bind.expanding)

    def _lay_out(
        self, compiled: SQLCompiler, statement: ClauseElement, parameters: Mapping[str, Any]
    ) -> _Layout | None:
        dialect = self._dialect
        binds = compiled.binds
        if any(bind.expanding and not parameters.get(name) for name, bind in binds.items()):
            return None  # SQLAlchemy renders an empty IN as a special expression
        state = compiled.construct_expanded_state(dict(parameters))
        expanded = {
            element: (name, i) for name, names in state.parameter_expansion.items() for i, element in enumerate(names)
        }
        slots = []
        for position in state.positiontup or ():
            name, element = expanded.get(position, (position, None))
            bind = binds[name]
            given = name in parameters
            if not given and (isinstance(statement, Insert) or bind.required or bind.callable is not None):
                return None  # a column default or a value computed per execution: SQLAlchemy's job
            impl = bind.type.dialect_impl(dialect)
            slots.append(_Slot(name, element, None if given else bind.value, given, impl.bind_processor(dialect)))
        return _Layout(state.statement, tuple(slots))

    def _result_processors(self, statement: ClauseElement) -> tuple[Processor | None, ...] | None:
        if not isinstance(statement, SelectBase):
            return None
        dialect = self._dialect
        processors = tuple(
            column.type.dialect_impl(dialect).result_processor(dialect, None) for column in statement.selected_columns
        )
        return processors if any(p is not None for p in processors) else None


async def run_bound(driver: SqliteConnection, bound: Bound, *, read: bool) -> tuple[list[Any], int]:
    """Run ``bound`` on ``driver``: its rows (undecoded) and row count. Errors are raised as SQLAlchemy
    raises them (IntegrityError, OperationalError…), so every caller's handling applies unchanged."""
    try:
        return await driver.direct(bound.sql, bound.parameters, read=read)
    except sqlite3.Error as error:
        raise exc.DBAPIError.instance(bound.sql, bound.parameters, error, sqlite3.Error) from error
