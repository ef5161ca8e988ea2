"""pgvector: vectors searched inside PostgreSQL, so workers hold no index of their own.

With ``index.backend = pgvector`` (or ``auto`` on a PostgreSQL database that has the
``vector`` extension), each searched table (heuristics and their examples, admission runs, routing passages)
carries its embedding a second time as an ``embedding_vector vector(384)`` column with an
HNSW index over cosine distance, written in the same transaction as the row. A search is one
``ORDER BY embedding_vector <=> query LIMIT k`` with the hard filters (tenant, domain, scope,
active) in its ``WHERE``; pgvector's iterative scan (``hnsw.iterative_scan = relaxed_order``)
keeps walking the graph until ``k`` rows pass them, so a filter never starves the top k. A write
committed by any process is searched by every other at once: there is nothing to follow.

The ``bytea`` ``embedding`` column stays the store of record (the same on SQLite); the
migration that adds the vector columns fills them from it (``ensure_schema``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from sqlalchemy import Column, Float, MetaData, String, Table, Text, bindparam, cast, func, select, text, update
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import UserDefinedType

from phronesis.embeddings.types import Vectors
from phronesis.exceptions import ConfigurationError
from phronesis.storage.database import Database
from phronesis.storage.types import EmbeddingBytes

__all__ = [
    "COLUMN",
    "DIMENSION",
    "PgVectorColumn",
    "VectorType",
    "ensure_schema",
    "pgvector_state",
    "vector_text",
    "with_vector_column",
]

log = logging.getLogger("phronesis.storage")

COLUMN: Final = "embedding_vector"
DIMENSION: Final = 384
"""all-MiniLM-L6-v2's dimension: the columns are ``vector(384)`` (an HNSW index needs a fixed one)."""
HNSW_M: Final = 24
HNSW_EF_CONSTRUCTION: Final = 128
"""The graph's degree and build breadth (migration 0013 rebuilds an index built with others).
Measured at 1M vectors (the real-spectrum workload of benchmarks/bench_index.py, 500 held-out
queries, through ``PgVectorCollection``, shared_buffers 4 GB, warm), recall of the true matches
>= 0.7 and search p50 / p99:

- GLADyS's m=16, ef_construction=64 left a cluster of real embeddings unreachable from the entry
  point: 0.985 whatever ``ef_search`` was;
- m=32, 128: 0.987 at ef_search 64, 0.993 at 100 for 5.5 / 12.0 ms (build 2,152 s on 2 cores);
- m=24, 128: 0.992 at 40 (3.4-4.0 / 6.6-8.9 ms), **0.995 at 50 (3.5-3.8 / 7.1-8.6 ms)**, 0.995 at
  100 (6.6-7.7 / 10.4-13.8 ms); build 2,081 s. Each search step reads fewer neighbours, and this
  graph reaches the matches with a shorter candidate list."""

TABLES: Final = ("heuristics", "admission_runs", "routing_passages", "heuristic_examples")
"""The tables searched in PostgreSQL. Routing documents were searched whole until migration 0012
(``routing.passages``): their passages are searched now, and that migration drops the documents'
column."""


def vector_text(vector: Vectors) -> str:
    """pgvector's text form, ``[x,y,…]``: nine significant digits round-trip a float32 exactly
    (measured four times faster than numpy's float formatting per element)."""
    return "[" + ",".join([f"{x:.9g}" for x in vector.tolist()]) + "]"


class VectorType(UserDefinedType[Vectors]):
    """``vector(384)``, sent as text and cast in SQL (asyncpg has no codec for it)."""

    cache_ok = True

    def get_col_spec(self, **_: Any) -> str:
        return f"vector({DIMENSION})"

    def bind_processor(self, dialect: Dialect) -> Any:
        def process(value: Vectors | None) -> str | None:
            return None if value is None else vector_text(np.asarray(value, dtype=np.float32))

        return process

    def bind_expression(self, bindvalue: Any) -> ColumnElement[Any]:
        return cast(cast(bindvalue, Text), self)


def _table(name: str, *extra: Column[Any]) -> Table:
    """The columns of ``name`` a pgvector search or write uses (not part of the shared schema:
    SQLite has no vector column)."""
    return Table(
        name,
        MetaData(),
        Column("tenant", String(64), primary_key=True),
        Column("id", String(64), primary_key=True),
        Column(COLUMN, VectorType()),
        *extra,
    )


def with_vector_column(table: Table) -> Table:
    """``table`` as it is where pgvector's migration ran: its columns and the vector column (for
    inserts that write both; the shared schema has no vector column, as SQLite has none)."""
    copy = table.to_metadata(MetaData())
    copy.append_column(Column(COLUMN, VectorType()))
    return copy


@dataclass(frozen=True, slots=True)
class PgVectorColumn:
    """One table's vector column: written beside the row, searched with its filters."""

    table: Table

    @classmethod
    def of(cls, name: str) -> PgVectorColumn:
        extra: dict[str, tuple[Column[Any], ...]] = {
            "heuristics": (Column("domain", String(128)),),
            "admission_runs": (
                Column("agent_id", String(64)),
                Column("user_id", String(64)),
                Column("status", String(16)),
            ),
            "routing_passages": (Column("document_id", String(64)),),
            "heuristic_examples": (Column("domain", String(128)),),
        }
        return cls(_table(name, *extra[name]))

    async def write(self, connection: AsyncConnection, tenant: str, items: Sequence[tuple[str, Vectors]]) -> None:
        """Set the vectors of rows just written, in the caller's transaction (a vector of another
        dimension leaves the column empty: the row is not searched here until re-embedded)."""
        if not items:
            return
        t = self.table
        statement = (
            update(t)
            .where(t.c.tenant == bindparam("w_tenant"), t.c.id == bindparam("w_id"))
            .values({COLUMN: bindparam("vector", type_=VectorType())})
        )
        await connection.execute(
            statement,
            [{"w_tenant": tenant, "w_id": key, "vector": v if len(v) == DIMENSION else None} for key, v in items],
        )

    async def search(
        self, database: Database, tenant: str, query: Vectors, k: int, *filters: ColumnElement[bool]
    ) -> list[tuple[str, float, tuple[Any, ...]]]:
        """Up to ``k`` (key, cosine similarity, the row's other selected values), most similar first."""
        t = self.table
        distance = t.c[COLUMN].op("<=>", return_type=Float())(
            cast(cast(bindparam("query", vector_text(query)), Text), VectorType())
        )
        others = [c for c in t.c if c.name not in ("tenant", "id", COLUMN)]
        statement = (
            select(t.c.id, (1 - distance).label("similarity"), *others)
            .where(t.c.tenant == tenant, t.c[COLUMN].is_not(None), *filters)
            .order_by(distance)
            .limit(k)
        )
        async with database.connect() as conn:
            rows = (await conn.execute(statement)).all()
        found = [(row[0], float(row[1]), tuple(row[2:])) for row in rows]
        found.sort(key=lambda hit: -hit[1])  # an iterative scan may return them slightly out of order
        return found


async def pgvector_state(database: Database) -> str | None:
    """None when this database can search with pgvector, else why not (one line)."""
    if database.dialect != "postgresql":
        return "the database is not PostgreSQL"
    async with database.connect() as conn:
        installed = (await conn.execute(text("SELECT 1 FROM pg_extension WHERE extname = 'vector'"))).first()
        if installed is None:
            available = (
                await conn.execute(text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"))
            ).first()
            return (
                "the vector extension is not installed in this database (run `phronesis db upgrade`)"
                if available
                else "PostgreSQL has no vector extension (install pgvector on the database server)"
            )
        columns = await conn.execute(
            text(
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
                "AND column_name = :column AND table_name = ANY(:tables)"
            ),
            {"column": COLUMN, "tables": list(TABLES)},
        )
        if columns.scalar_one() != len(TABLES):
            return "the vector columns are missing (run `phronesis db upgrade`)"
    return None


def require(state: str | None) -> None:
    if state is not None:
        raise ConfigurationError(f"PHRONESIS_INDEX__BACKEND=pgvector: {state}")


def ensure_schema(connection: Connection, tables: Sequence[str] = TABLES) -> bool:
    """Add the vector columns and their HNSW indexes to ``tables``, filled from the stored
    embeddings, if this is PostgreSQL with pgvector available; idempotent. False (nothing done)
    otherwise. A migration names the tables that exist at its revision."""
    if connection.dialect.name != "postgresql":
        return False
    if connection.execute(text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")).first() is None:
        return False
    present = connection.execute(
        text(
            "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND column_name = :column AND table_name = ANY(:tables)"
        ),
        {"column": COLUMN, "tables": list(tables)},
    ).scalar_one()
    if present == len(tables):
        return True  # every write fills them from here on (see PgVectorColumn.write)
    connection.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    for name in tables:
        connection.execute(text(f"ALTER TABLE {name} ADD COLUMN IF NOT EXISTS {COLUMN} vector({DIMENSION})"))
        _backfill(connection, name)
        _create_index(connection, name)
        connection.execute(text(f"ANALYZE {name}"))  # so the planner picks the index at once
    return True


def _create_index(connection: Connection, name: str) -> None:
    connection.execute(
        text(
            f"CREATE INDEX IF NOT EXISTS ix_{name}_{COLUMN} ON {name} USING hnsw ({COLUMN} vector_cosine_ops) "
            f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
        )
    )


def rebuild_other_graphs(connection: Connection, tables: Sequence[str] = TABLES) -> list[str]:
    """Rebuild each HNSW index built with other parameters than ``HNSW_M`` and
    ``HNSW_EF_CONSTRUCTION`` (``CREATE INDEX IF NOT EXISTS`` keeps an old one as it is, and the
    default ``ef_search`` is chosen for this graph). The tables whose index was rebuilt."""
    if connection.dialect.name != "postgresql":
        return []
    wanted = {f"m={HNSW_M}", f"ef_construction={HNSW_EF_CONSTRUCTION}"}
    rebuilt = []
    for name in tables:
        options = connection.execute(
            text(
                "SELECT reloptions FROM pg_class "
                "WHERE relname = :index AND relnamespace = current_schema()::regnamespace"
            ),
            {"index": f"ix_{name}_{COLUMN}"},
        ).first()
        if options is None or wanted <= set(options[0] or ()):
            continue
        rows = connection.execute(text(f"SELECT count(*) FROM {name} WHERE {COLUMN} IS NOT NULL")).scalar_one()
        log.warning(
            "pgvector: rebuilding the index of %s (%d vectors) with m=%d, ef_construction=%d (was %s); "
            "about 35 minutes per million vectors on 2 cores",
            name,
            rows,
            HNSW_M,
            HNSW_EF_CONSTRUCTION,
            ", ".join(options[0] or ()) or "the defaults",
        )
        connection.execute(text(f"DROP INDEX ix_{name}_{COLUMN}"))
        _create_index(connection, name)
        rebuilt.append(name)
    return rebuilt


def _backfill(connection: Connection, name: str, batch: int = 5000) -> None:
    """Fill the vector column from the ``bytea`` embeddings (rows of another dimension stay empty:
    they are re-embedded by the model in use)."""
    source = Table(
        name,
        MetaData(),
        Column("tenant", String(64), primary_key=True),
        Column("id", String(64), primary_key=True),
        Column("embedding", EmbeddingBytes),
        Column(COLUMN, VectorType()),
    )
    target = PgVectorColumn(_table(name)).table
    filled = 0
    while True:
        rows = connection.execute(
            select(source.c.tenant, source.c.id, source.c.embedding)
            .where(source.c[COLUMN].is_(None), func.octet_length(source.c.embedding) == DIMENSION * 4)
            .limit(batch)
        ).all()
        if rows:
            connection.execute(
                update(target)
                .where(target.c.tenant == bindparam("w_tenant"), target.c.id == bindparam("w_id"))
                .values({COLUMN: bindparam("vector", type_=VectorType())}),
                [{"w_tenant": r.tenant, "w_id": r.id, "vector": r.embedding} for r in rows],
            )
            filled += len(rows)
        if len(rows) < batch:
            break
    if filled:
        log.info("pgvector: %d rows of %s given their vector column", filled, name)


class PgVectorCollection:
    """A collection searched in PostgreSQL (heuristics, documents): the in-process index's seam
    (``storage.followed_index.FollowedIndex``) with nothing held, loaded or followed here."""

    loaded = True

    def __init__(self, database: Database, column: PgVectorColumn, partition: str | None) -> None:
        self._db = database
        self._column = column
        self._partition = partition

    def __len__(self) -> int:
        return 0  # no vector is held in this process

    def kinds(self) -> dict[str, int]:
        return {"pgvector": 1}

    async def load(self, progress: Any = None) -> int:
        return 0

    async def search(
        self, tenant: str, query: Vectors, k: int, *, partitions: Sequence[str] | None = None
    ) -> list[tuple[str, str, float]]:
        filters = []
        if partitions is not None and self._partition is not None:
            filters.append(self._column.table.c[self._partition].in_(list(partitions)))
        found = await self._column.search(self._db, tenant, query, k, *filters)
        return [(str(values[0]) if values else "", key, score) for key, score, values in found]

    def applied(self, tenant: str, partition: str, keys: Sequence[str], vectors: Vectors) -> None:
        """Nothing to do: the row's transaction wrote its vector column."""

    def removed(self, tenant: str, key: str) -> None:
        """Nothing to do: the row is gone, and with it its vector."""

    async def close(self) -> None:
        return None
