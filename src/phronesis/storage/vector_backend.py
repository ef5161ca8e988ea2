"""Where an engine's embeddings are searched, and whether pgvector's columns are written.

Both depend on the migrated database (is pgvector there, are its columns of the embedder's
dimension), so they are known only once the engine has started. Every store is built with the
engine's one ``VectorBackend`` and asks it at each use; the engine settles it once (``choose``)
and touches no store's parts to do so.
"""

from __future__ import annotations

from phronesis.storage.pgvector import PgVectorColumn

__all__ = ["VECTOR_TABLES", "VectorBackend"]

VECTOR_TABLES = ("heuristics", "heuristic_examples", "routing_passages", "admission_runs")
"""The tables with a pgvector column (``PgVectorColumn.of``)."""


class VectorBackend:
    """Until ``choose``: searched in this process, no pgvector column written (a store built on its
    own, as tests build them, stays so)."""

    def __init__(self) -> None:
        self._columns: dict[str, PgVectorColumn] = {}
        self._in_database = False

    def choose(self, *, columns: bool, in_database: bool) -> None:
        """Settle it: ``columns``, the database has pgvector's columns (every process writes them,
        whichever searches, so switching later misses nothing); ``in_database``, searches go there."""
        if in_database and not columns:
            raise ValueError("searches cannot go to pgvector columns the database does not have")
        self._columns = {table: PgVectorColumn.of(table) for table in VECTOR_TABLES} if columns else {}
        self._in_database = in_database

    @property
    def in_database(self) -> bool:
        """Searches go to PostgreSQL's pgvector (else to this process's index, following the database)."""
        return self._in_database

    def column(self, table: str) -> PgVectorColumn | None:
        """``table``'s pgvector column to write beside its rows, or None where the database has none."""
        return self._columns.get(table)
