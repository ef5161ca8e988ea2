"""Admission benchmark (seed 003): latency, batch throughput, memory and index recall at 10k/100k/1M runs.

For each size a SQLite knowledge base is filled with that many active runs, the engine
starts (building the runs index from the table: exact below 20k runs, HNSW above), and:

- recall@3 of the runs index against exact search, for 500 held-out queries;
- single-run admission latency with no LLM, p50/p99, **embedding excluded** (each probe's
  summary vector is precomputed): a third of the probes are new runs (ADD), a third are
  close variants of stored runs of the same task (judged: REPLACE/MERGE/NOT), a third are
  exact re-sends of stored content (NOT by hash);
- the same with the embedding **included** (the real local model embeds each summary);
- batch admission throughput (batches of 1,000 runs, one transaction each);
- resident memory after the index is built.

Workload: the stored runs' summaries are the real all-MiniLM-L6-v2 embeddings of CLINC150's
15,100 train utterances; past that, vectors drawn from a Gaussian with the real embeddings'
mean and covariance (bench_heuristics.SpectrumSampler). Queries are CLINC150 validation
utterances. ``--mrpc`` adds the duplicate-threshold calibration on MRPC train (5-fold).

    cd benchmarks && python bench_admission.py --sizes 10000,100000,1000000
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import tempfile
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import psutil
from sqlalchemy import insert

from bench_heuristics import DATA, SpectrumSampler, clinc_texts, percentile, rss_mb
from phronesis.admission.fingerprints import content_hash, task_id_for
from phronesis.admission.models import RunIn
from phronesis.admission.pairs import calibrate_threshold, pair_metrics, pair_similarities, read_pairs
from phronesis.embeddings.local import LocalSentenceEmbedder
from phronesis.embeddings.types import Vectors, l2_normalize
from phronesis.engine import Engine
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.storage.migrate import upgrade
from phronesis.storage.tables import admission_runs

TENANT = "bench"
TASKS = 2000
CHUNK = 20_000


class TableEmbedder:
    """Precomputed vectors by text (embedding excluded); unknown texts go to the real model."""

    def __init__(self, model: LocalSentenceEmbedder) -> None:
        self.model = model
        self.table: dict[str, Vectors] = {}
        self.model_name = model.model_name
        self.dimension = model.dimension

    async def embed(self, texts: Sequence[str]) -> Vectors:
        missing = [t for t in texts if t not in self.table]
        if missing:
            for text, vector in zip(missing, await self.model.embed(missing), strict=True):
                self.table[text] = vector
        return np.stack([self.table[t] for t in texts])


def stored_run(i: int, text: str | None) -> RunIn:
    return RunIn(
        task=f"task {i % TASKS}",
        outcome="success" if i % 3 else "failure",
        summary=text or f"synthetic run {i}",
        references=[f"doc-{i % 500}"],
    )


async def populate(path: Path, vectors: Vectors, texts: list[str], model_name: str) -> float:
    started = time.perf_counter()
    database = Database(f"sqlite+aiosqlite:///{path}")
    await upgrade(database)
    now = datetime.now(UTC)
    for start in range(0, len(vectors), CHUNK):
        rows = []
        for i in range(start, min(start + CHUNK, len(vectors))):
            run = stored_run(i, texts[i] if i < len(texts) else None)
            task_id = task_id_for(run.task)
            rows.append(
                {
                    "tenant": TENANT,
                    "id": f"run-{i}",
                    "agent_id": "default",
                    "user_id": "",
                    "task_id": task_id,
                    "task": run.task,
                    "summary": run.summary,
                    "summary_source": "caller",
                    "outcome": run.outcome,
                    # real hashes where probes re-send content; unique filler elsewhere
                    "content_hash": content_hash(run, task_id)
                    if i < len(texts)
                    else hashlib.sha256(str(i).encode()).hexdigest(),
                    "embedding": vectors[i],
                    "embedding_model": model_name,
                    "status": "active",
                    "canonical": True,
                    "usage_count": 1,
                    "duplicate_count": 0,
                    "attributes": {},
                    "created_at": now,
                    "updated_at": now,
                }
            )
        async with database.transaction() as conn:
            await conn.execute(insert(admission_runs), rows)
    await database.dispose()
    return time.perf_counter() - started


EF_SWEEP: list[str] = []
"""Rows of the search-breadth table (``--ef-search``): size, efSearch, recall@3, ms per index search."""


def recall_at_3(engine: Engine, stored: Vectors, queries: Vectors) -> float:
    index = engine.admission.index
    hit = 0
    for query in queries:
        truth = {f"run-{i}" for i in np.argpartition(-(stored @ query), 3)[:3]}
        found = {key for key, _ in index.search(TENANT, "default", "", query, 3)}
        hit += len(truth & found)
    return hit / (3 * len(queries))


async def timed(engine: Engine, runs: list[RunIn]) -> tuple[list[float], dict[str, int]]:
    latencies, decisions = [], {}
    for run in runs:
        started = time.perf_counter()
        result = await engine.admission.admit(TENANT, run)
        latencies.append((time.perf_counter() - started) * 1000)
        decisions[result.decision] = decisions.get(result.decision, 0) + 1
    return latencies, decisions


async def bench_size(
    size: int,
    args: argparse.Namespace,
    model: LocalSentenceEmbedder,
    real: Vectors,
    texts: list[str],
    queries: Vectors,
    fresh_texts: list[str],
    scratch: Path,
) -> list[str]:
    sampler = SpectrumSampler(real)
    stored = real[:size] if size <= len(real) else np.concatenate([real, sampler.sample(size - len(real), seed=7)])
    path = scratch / f"admission-{size}.db"
    fill_s = await populate(path, stored, texts, model.model_name)
    embedder = TableEmbedder(model)
    settings = Settings(data_dir=scratch, database={"url": f"sqlite+aiosqlite:///{path}"})
    engine = Engine(settings, embedder=embedder, llm=None)
    started = time.perf_counter()
    await engine.start()
    build_s = time.perf_counter() - started
    memory = rss_mb()
    recall = recall_at_3(engine, stored, queries[: args.queries])
    for ef in args.ef_search:
        engine.admission.in_process.set_expansion_search(ef)
        swept = recall_at_3(engine, stored, queries[: args.queries])
        started = time.perf_counter()
        for query in queries[: args.queries]:
            engine.admission.in_process.search(TENANT, "default", "", query, 3 * 4)  # the planner's oversampled k
        per_query = (time.perf_counter() - started) * 1000 / len(queries[: args.queries])
        EF_SWEEP.append(f"| {size:,} | {ef} | {swept:.4f} | {per_query:.3f} |")
    if args.ef_search:
        engine.admission.in_process.set_expansion_search(engine.settings.index.hnsw_expansion_search)

    rng = np.random.default_rng(11)
    probes: list[RunIn] = []
    planted = min(size, len(texts))
    for n in range(args.probes):
        kind, i = n % 3, int(rng.integers(planted))
        if kind == 0:  # a new run
            text = f"new run {n} {uuid.uuid4().hex}"
            embedder.table[text] = queries[n % len(queries)]
            probes.append(RunIn(task=f"fresh task {n}", outcome="success", summary=text))
        elif kind == 1:  # a close variant of a stored run, same task
            text = f"variant {n} {uuid.uuid4().hex}"
            noise = rng.normal(0, 0.012, stored.shape[1]).astype(np.float32)
            embedder.table[text] = l2_normalize(stored[i] + noise).reshape(-1)
            probes.append(RunIn(task=f"task {i % TASKS}", outcome="success", summary=text, references=["doc-x"]))
        else:  # the same content again
            probes.append(stored_run(i, texts[i]))
    excluded, decisions = await timed(engine, probes)

    included_runs = [RunIn(task=f"embedded {n}", outcome="success", summary=t) for n, t in enumerate(fresh_texts)]
    embedder.table.clear()
    included, _ = await timed(engine, included_runs)

    batches = []
    for b in range(args.batches):
        runs = []
        for n in range(1000):
            text = f"batch {b} {n} {uuid.uuid4().hex}"
            embedder.table[text] = sampler.sample(1, seed=1000 * b + n)[0]
            runs.append(RunIn(task=f"batch task {n % 50}", outcome="success", summary=text))
        started = time.perf_counter()
        await engine.admission.admit_many(TENANT, runs)
        batches.append(1000 / (time.perf_counter() - started))
    await engine.close()
    path.unlink(missing_ok=True)
    mix = "/".join(f"{decisions.get(d, 0)}" for d in ("ADD", "NOT", "REPLACE", "MERGE"))
    kind = ", ".join(f"{v} {k}" for k, v in engine.admission.in_process.partition_kinds().items())
    return [
        f"| {size:,} | {kind} | {fill_s:.0f} s | {build_s:.1f} s | {memory:,.0f} MB | {recall:.4f} "
        f"| {percentile(excluded, 50):.2f} | {percentile(excluded, 99):.2f} | {mix} "
        f"| {percentile(included, 50):.2f} | {percentile(included, 99):.2f} | {np.median(batches):,.0f} |"
    ]


async def mrpc(model: LocalSentenceEmbedder, folds: int = 5) -> list[str]:
    pairs = read_pairs(DATA / "mrpc" / "mrpc_train.tsv")
    similarity = await pair_similarities(pairs, model)
    truth = np.array([p.duplicate for p in pairs])
    order = np.random.default_rng(5).permutation(len(pairs))
    lines = ["| objective | threshold (mean) | accuracy | F1 | precision | recall |", "|---|---:|---:|---:|---:|---:|"]
    for objective in ("accuracy", "f1", "precision"):
        scores, thresholds = [], []
        for fold in range(folds):
            test = order[fold::folds]
            train = np.setdiff1d(order, test)
            threshold = calibrate_threshold(similarity[train], truth[train], objective=objective)  # type: ignore[arg-type]
            thresholds.append(threshold)
            scores.append(pair_metrics(similarity[test], truth[test], threshold))
        mean = {k: float(np.mean([s[k] for s in scores])) for k in ("accuracy", "f1", "precision", "recall")}
        lines.append(
            f"| {objective}{' (≥ 0.9)' if objective == 'precision' else ''} | {np.mean(thresholds):.3f} "
            f"| {mean['accuracy']:.3f} | {mean['f1']:.3f} | {mean['precision']:.3f} | {mean['recall']:.3f} |"
        )
    majority = float(truth.mean())
    lines.append(
        f"| (all duplicate, majority) | - | {majority:.3f} | {2 * majority / (1 + majority):.3f} | "
        f"{majority:.3f} | 1.000 |"
    )
    return lines


async def main_async(args: argparse.Namespace) -> None:
    model = LocalSentenceEmbedder()
    texts = clinc_texts(args.data_dir, "train", "oos_train")
    real = model.embed_sync(texts)
    val = clinc_texts(args.data_dir, "val")
    queries = model.embed_sync(val[: max(args.queries, args.probes)])
    fresh = val[-args.embedded :]
    print(
        f"machine: {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB; SQLite; no LLM (rule judge)"
    )
    print(
        f"{len(real):,} real CLINC150 summaries planted; {args.probes} probes (ADD / judged / re-sent), "
        f"{args.embedded} with the embedding, {args.batches} batches of 1,000\n"
    )
    print(
        "| runs | runs index | fill | index build | memory | recall@3 | p50 ms excl. emb. | p99 ms excl. emb. "
        "| ADD/NOT/REPLACE/MERGE | p50 ms incl. emb. | p99 ms incl. emb. | batch runs/s |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="bench-admission-", dir=args.scratch) as scratch:
        for size in args.sizes:
            for line in await bench_size(size, args, model, real, texts, queries, fresh, Path(scratch)):
                print(line, flush=True)
    if EF_SWEEP:
        print("\nHNSW search breadth on the same built index (exact partitions ignore it)\n")
        print("| runs | efSearch | recall@3 | ms per index search (k=12) |\n|---:|---:|---:|---:|")
        print("\n".join(EF_SWEEP))
    if args.mrpc:
        print("\nDuplicate threshold calibrated on MRPC train (4,076 pairs), 5-fold cross-validated, MiniLM cosine\n")
        for line in await mrpc(model):
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--probes", type=int, default=600)
    parser.add_argument("--embedded", type=int, default=200)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument("--mrpc", action="store_true")
    parser.add_argument(
        "--ef-search",
        type=lambda v: [int(x) for x in v.split(",")],
        default=[],
        help="Also measure recall@3 at these HNSW search breadths (e.g. 128,256,512), on the same built index.",
    )
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--scratch", type=Path, default=None, help="Where the temporary databases go.")
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
