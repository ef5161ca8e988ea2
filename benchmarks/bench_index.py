"""Vector search backends side by side (issue 19): exact and HNSW in each process, pgvector in PostgreSQL.

For each size and backend, heuristics are stored in a real database through the repository
(so the change feed and, on pgvector, the vector column are written as in production), then:

- build: the in-process index rebuilt from the table (``FollowedIndex.load`` without a
  snapshot); for pgvector, ``CREATE INDEX … USING hnsw`` over the filled column;
- memory: what the index adds to a process (RSS after minus before; pgvector: nothing here);
- ready: a fresh Python process that opens the database and answers one search, from its
  start: with the snapshot the in-process index saved (in-process), or at once (pgvector);
- recall@5 and recall of the true top-5 matches with cosine >= 0.7 (what matching returns),
  against exact search; search p50/p99 through the backend's seam (one tenant, one domain).

Workload as ``bench_heuristics.py``: real all-MiniLM-L6-v2 embeddings of the CLINC150 train
utterances planted among vectors drawn with the real embeddings' spectrum; queries are held-out
CLINC150 validation utterances.

    python benchmarks/bench_index.py --sizes 100000,1000000 --backends exact,hnsw,pgvector
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import psutil
from sqlalchemy import insert, text

from bench_heuristics import DATA, K, SpectrumSampler, clinc_texts, percentile, recalls
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.embeddings.types import Vectors
from phronesis.heuristics.repository import HeuristicRepository
from phronesis.storage.change_feed import change_rows
from phronesis.storage.database import Database
from phronesis.storage.feed_follower import SnapshotPolicy
from phronesis.storage.followed_index import FollowedIndex
from phronesis.storage.hnsw_index import HnswVectorIndex
from phronesis.storage.index_snapshot import IndexSnapshots, database_fingerprint
from phronesis.storage.migrate import upgrade
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.pgvector import COLUMN, HNSW_EF_CONSTRUCTION, HNSW_M, PgVectorCollection, PgVectorColumn
from phronesis.storage.tables import heuristics, index_changes
from phronesis.storage.vector_index import ExactVectorIndex

TENANT, DOMAIN = "bench", "home"
MODEL = "all-MiniLM-L6-v2"


class _Named(HashingEmbedder):
    """Stands in for the real model's name (the vectors are the workload's, embedded beforehand)."""

    @property
    def model_name(self) -> str:
        return MODEL


def rss_mb() -> float:
    gc.collect()
    return psutil.Process(os.getpid()).memory_info().rss / 2**20


SHARED_BUFFERS = "4GB"
"""PostgreSQL's page cache, sized to hold the 1M index (2.0 GB) and its hot rows: with the default
128 MB every search reads pages through the kernel (p99 31 ms at 1M instead of 12)."""


@contextmanager
def _pgvector(tmp: Path) -> Iterator[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
        server.psql(f"ALTER SYSTEM SET shared_buffers = '{SHARED_BUFFERS}';")
        server.cleanup()  # the last handle stops it; started again with the setting
        server = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
    try:
        yield f"postgresql+asyncpg://postgres@/postgres?host={server.get_uri().split('host=', 1)[1]}"
    finally:
        server.cleanup()


async def _fill(database: Database, data: Vectors, *, vectors_column: bool) -> None:
    """Store the heuristics the way ``create_many`` does, in large batches, with their feed entries."""
    repository = HeuristicRepository(database)
    now = repository._clock.now()
    statement = insert(heuristics)
    if vectors_column:
        from phronesis.storage.pgvector import with_vector_column

        statement = insert(with_vector_column(heuristics))
    for start in range(0, len(data), 5000):
        rows = []
        for i in range(start, min(len(data), start + 5000)):
            row = {
                "tenant": TENANT, "id": f"h{i:07d}", "domain": DOMAIN, "name": None,
                "condition_text": f"condition {i}", "action_text": "act", "embedding": data[i],
                "embedding_model": MODEL, "alpha": 1.0, "beta": 1.0, "prior_alpha": 1.0, "prior_beta": 1.0,
                "confidence": 0.5, "origin": "pack", "origin_id": None, "locked": False, "floor": 0.0,
                "ceiling": 1.0, "feedback_weight": 1.0, "fire_count": 0, "success_count": 0,
                "failure_count": 0, "last_fired_at": None, "created_at": now, "updated_at": now,
                "attributes": {},
            }  # fmt: skip
            if vectors_column:
                row[COLUMN] = data[i]
            rows.append(row)
        async with database.transaction() as conn:
            await conn.execute(statement, rows)
            await conn.execute(
                insert(index_changes), change_rows("heuristics", TENANT, (("add", r["id"]) for r in rows), now)
            )


READY = """
import asyncio, sys, time
started = float(sys.argv[1])
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.heuristics.repository import HeuristicRepository
from phronesis.storage.database import Database
from phronesis.storage.followed_index import FollowedIndex
from phronesis.storage.feed_follower import SnapshotPolicy
from phronesis.storage.index_snapshot import IndexSnapshots, database_fingerprint
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.pgvector import PgVectorCollection, PgVectorColumn
import numpy as np

class Named(HashingEmbedder):
    @property
    def model_name(self): return "all-MiniLM-L6-v2"

async def main():
    database = Database(sys.argv[2])
    query = np.load(sys.argv[4])
    if sys.argv[3] == "pgvector":
        index = PgVectorCollection(database, PgVectorColumn.of("heuristics"), partition="domain")
    else:
        repository = HeuristicRepository(database)
        snapshots = IndexSnapshots(__import__("pathlib").Path(sys.argv[5]), database_fingerprint(database.identity))
        index = FollowedIndex(PartitionedIndex(384, exact_max_size=int(sys.argv[6])), repository, repository.changes,
                              Named(384), snapshot=SnapshotPolicy(snapshots, min_size=0))
        await index.load()
    hits = await index.search("bench", query, 5, partitions=["home"])
    assert hits, "no answer"
    print(f"{time.time() - started:.3f}")
    await database.dispose()

asyncio.run(main())
"""


def ready_seconds(url: str, backend: str, query: Vectors, snapshot_dir: Path, exact_max: int) -> float:
    with tempfile.NamedTemporaryFile(suffix=".npy", delete=False) as handle:
        np.save(handle, query)
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", READY, str(started), url, backend, handle.name, str(snapshot_dir), str(exact_max)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


async def in_process(url: str, backend: str, data: Vectors, queries: Vectors, tmp: Path) -> dict[str, float]:
    database = Database(url)
    exact_max = 10**12 if backend == "exact" else 20_000
    snapshots = IndexSnapshots(tmp / "index", database_fingerprint(database.identity))
    repository = HeuristicRepository(database)
    index = FollowedIndex(
        PartitionedIndex(384, exact_max_size=exact_max, hnsw_factory=lambda dim: HnswVectorIndex(dim)),
        repository,
        repository.changes,
        _Named(384),
        snapshot=SnapshotPolicy(snapshots, min_size=10**12),  # no snapshot during the timed build
    )
    before = rss_mb()
    started = time.perf_counter()
    await index.load()
    build = time.perf_counter() - started
    memory = rss_mb() - before
    found, latencies = await _searches(index, queries)
    last = await repository.changes.last_id()  # the snapshot is current to the newest feed entry
    saving = time.perf_counter()
    await asyncio.to_thread(snapshots.save, "heuristics", index.index, watermark=last, embedding_model=MODEL)
    snapshot_s = time.perf_counter() - saving
    await database.dispose()
    ready = ready_seconds(url, backend, queries[0], tmp / "index", exact_max)
    return {"build": build, "memory": memory, "ready": ready, "snapshot_s": snapshot_s,
            "snapshot_mb": snapshots.path("heuristics").stat().st_size / 2**20, "found": found, "lat": latencies}  # type: ignore[dict-item]  # fmt: skip


async def in_pgvector(url: str, data: Vectors, queries: Vectors, tmp: Path) -> dict[str, object]:
    database = Database(url)
    async with database.engine.begin() as conn:
        await conn.execute(text(f"DROP INDEX IF EXISTS ix_heuristics_{COLUMN}"))
    await _fill(database, data, vectors_column=True)
    started = time.perf_counter()
    async with database.engine.begin() as conn:
        await conn.execute(text("SET maintenance_work_mem = '2GB'"))
        await conn.execute(
            text(
                f"CREATE INDEX ix_heuristics_{COLUMN} ON heuristics USING hnsw ({COLUMN} vector_cosine_ops) "
                f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
            )
        )
    build = time.perf_counter() - started
    async with database.engine.begin() as conn:
        await conn.execute(text("ANALYZE heuristics"))  # what autovacuum does soon after a bulk load
    index = PgVectorCollection(database, PgVectorColumn.of("heuristics"), partition="domain")
    found, latencies = await _searches(index, queries)
    await database.dispose()
    ready = ready_seconds(url, "pgvector", queries[0], tmp, 0)
    return {"build": build, "memory": 0.0, "ready": ready, "found": found, "lat": latencies}


async def _searches(
    index: FollowedIndex | PgVectorCollection, queries: Vectors
) -> tuple[list[list[tuple[str, float]]], list[float]]:
    found, latencies = [], []
    await index.search(TENANT, queries[0], K, partitions=[DOMAIN])  # warm
    for query in queries:
        started = time.perf_counter()
        hits = await index.search(TENANT, query, K, partitions=[DOMAIN])
        latencies.append((time.perf_counter() - started) * 1000)
        found.append([(key, score) for _, key, score in hits])
    return found, latencies


def truth(data: Vectors, queries: Vectors) -> list[list[tuple[str, float]]]:
    exact = ExactVectorIndex(384, initial_capacity=len(data))
    for start in range(0, len(data), 100_000):
        exact.upsert(
            [f"h{i:07d}" for i in range(start, min(len(data), start + 100_000))], data[start : start + 100_000]
        )
    return exact.search_many(queries, K)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100000")
    parser.add_argument("--backends", default="exact,hnsw,pgvector")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--data-dir", type=Path, default=DATA)
    args = parser.parse_args()
    from phronesis.embeddings.local import LocalSentenceEmbedder

    model = LocalSentenceEmbedder()
    planted = model.embed_sync(clinc_texts(args.data_dir, "train", "oos_train"))
    queries = model.embed_sync(clinc_texts(args.data_dir, "val")[: args.queries])
    sampler = SpectrumSampler(planted)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        data = np.concatenate([planted, sampler.sample(max(0, size - len(planted)), seed=size)])[:size]
        expected = truth(data, queries)
        for backend in args.backends.split(","):
            with tempfile.TemporaryDirectory() as tmp_name:
                tmp = Path(tmp_name)
                print(f"{size:,} {backend} …", file=sys.stderr, flush=True)
                if backend == "pgvector":
                    with _pgvector(tmp) as url:
                        asyncio.run(upgrade(Database(url)))
                        result = asyncio.run(in_pgvector(url, data, queries, tmp))
                else:
                    url = f"sqlite+aiosqlite:///{tmp / 'bench.db'}"
                    db = Database(url)
                    asyncio.run(upgrade(db))
                    asyncio.run(_fill(db, data, vectors_column=False))
                    result = asyncio.run(in_process(url, backend, data, queries, tmp))
            recall, match_recall = recalls(expected, result["found"])  # type: ignore[arg-type]
            lat = result["lat"]
            build, memory, ready = result["build"], result["memory"], result["ready"]
            rows.append(
                f"| {size:,} | {backend} | {build:.1f} s | {memory:.0f} MB | {ready:.2f} s | {recall:.4f} "
                f"| {match_recall:.4f} | {percentile(lat, 50):.2f} | {percentile(lat, 99):.2f} |"  # type: ignore[arg-type]
            )
            print(rows[-1], file=sys.stderr, flush=True)
    print("\nmemory: what the index adds to each process (pgvector: none, it is in PostgreSQL); ready: a fresh")
    print("process from its start to its first search answer (in-process: from the snapshot plus the feed)\n")
    print("| vectors | backend | build | memory per process | ready | recall@5 | recall ≥ 0.7 | p50 ms | p99 ms |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
