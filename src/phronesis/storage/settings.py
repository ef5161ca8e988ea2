"""The storage's settings sections: the database, and the vector indexes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from phronesis.schema import Schema

__all__ = ["DatabaseSettings", "IndexSettings"]


class DatabaseSettings(Schema):
    url: str | None = None
    """SQLAlchemy async URL. None: a SQLite file ``phronesis.db`` under ``data_dir``."""
    echo: bool = False
    """Log every SQL statement (debugging only: it is loud)."""
    pool_size: int = Field(default=5, ge=1, le=200)
    """Connections each process keeps open to PostgreSQL."""


class IndexSettings(Schema):
    backend: Literal["auto", "exact", "hnsw", "pgvector"] = "auto"
    """Where heuristics, runs and documents are searched by embedding. ``exact`` / ``hnsw``: in each
    process (exact up to ``exact_max_size`` per partition, then HNSW; ``exact`` never HNSW),
    following the database. ``pgvector``: inside PostgreSQL (workers hold no index). ``auto``:
    pgvector where the database has it, else ``hnsw``."""
    exact_max_size: int = Field(default=20_000, ge=0)
    """A partition larger than this is served by HNSW instead of exact numpy search."""
    hnsw_connectivity: int = Field(default=32, ge=4, le=128)
    """HNSW M. GLADyS's pgvector index used m=16; 32 is measured better on sentence embeddings
    (300k vectors: recall@3 0.991 at efSearch 64 against m=16's 0.987 at efSearch 256, for a
    fifth of the search time; the build takes 1.6x as long)."""
    hnsw_expansion_add: int = Field(default=128, ge=8, le=4096)
    """efConstruction when a graph is built or rebuilt."""
    hnsw_expansion_add_online: int = Field(default=64, ge=8, le=4096)
    """efConstruction for a few vectors added to a built graph while a decision waits (its own new
    run or heuristic): a third of the insertion time of 128 (measured at 100k vectors)."""
    hnsw_expansion_search: int = Field(default=128, ge=8, le=4096)
    """efSearch: how many candidates an HNSW search looks at, search breadth against time (a partition
    past ``exact_max_size`` only; smaller ones are searched exactly)."""
    follow_interval_s: float = Field(default=0.0, ge=0.0, le=1.0)
    """How often at most a search reads the change feed for writes committed by other processes
    (this process's own writes are searched at once): the longest such a write can be missed.
    0: before every search (one indexed read; concurrent searches share it)."""
    snapshots: bool = True
    """Save large in-process indexes under ``data_dir/index`` and read them back at start-up
    instead of rebuilding them (then the change feed after them)."""
    snapshot_min_size: int = Field(default=20_000, ge=0)
    """Vectors from which an index is saved (a smaller one is rebuilt from its table in ~1 s)."""
    pgvector_ef_search: int = Field(default=50, ge=1, le=1000)
    """pgvector's ``hnsw.ef_search`` on every connection: search breadth against time. At 1M
    vectors, on the m=24 graph ``db upgrade`` builds, recall of matches >= 0.7 is 0.988 / 0.992 /
    0.995 / 0.995 at 30 / 40 / 50 / 100, for a p99 of 5.6 / 6.6-8.9 / 7.1-8.6 / 10.4-13.8 ms
    (``storage.pgvector.HNSW_M``). A search asking for more rows than this still gets them
    (pgvector's iterative scan)."""
