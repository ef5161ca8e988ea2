"""Heuristic memory benchmark: vector index build/match at 1k/100k/1M, and embedding throughput.

Prints two tables:

1. For each size: index build time and memory, match latency p50/p99 (excluding
   embedding) for exact numpy search and HNSW (faiss), and HNSW recall@5 against exact.
2. Embedding throughput of the real local model, one text per call, unbatched vs through
   the micro-batcher, at concurrency 1/8/32.

Vectors are synthetic but shaped like sentence embeddings (384-d, unit length, drawn
around a few thousand topic centres), because random isotropic vectors are the
pathological worst case for any graph index and say nothing about real heuristics.

    python benchmarks/bench_heuristics.py --sizes 1000,100000,1000000
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import time
from collections.abc import Callable, Sequence

import numpy as np
import psutil

from phronesis.embeddings.batcher import MicroBatchingEmbedder
from phronesis.embeddings.types import Embedder, Vectors, l2_normalize
from phronesis.settings import EmbeddingSettings
from phronesis.storage.hnsw_index import HnswVectorIndex
from phronesis.storage.vector_index import ExactVectorIndex, VectorIndex

DIM = 384
K = 5


def rss_mb() -> float:
    gc.collect()
    return psutil.Process(os.getpid()).memory_info().rss / 2**20


def synthetic(n: int, seed: int = 7, topics: int = 4000, spread: float = 0.55) -> Vectors:
    rng = np.random.default_rng(seed)
    centres = l2_normalize(rng.normal(size=(topics, DIM)))
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        picks = rng.integers(0, topics, stop - start)
        noise = rng.normal(scale=spread / np.sqrt(DIM), size=(stop - start, DIM))
        out[start:stop] = l2_normalize(centres[picks] + noise)
    return out


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def timed_search(index: VectorIndex, queries: Vectors) -> tuple[list[list[str]], list[float]]:
    results, latencies = [], []
    for query in queries:
        started = time.perf_counter()
        hits = index.search(query, K)
        latencies.append((time.perf_counter() - started) * 1000)
        results.append([key for key, _ in hits])
    return results, latencies


def build(factory: Callable[[], VectorIndex], keys: list[str], data: Vectors) -> tuple[VectorIndex, float, float]:
    before = rss_mb()
    started = time.perf_counter()
    index = factory()
    for start in range(0, len(keys), 50_000):
        index.upsert(keys[start : start + 50_000], data[start : start + 50_000])
    return index, time.perf_counter() - started, rss_mb() - before


def bench_size(n: int, queries_count: int, expansion_search: int, expansion_add: int) -> list[str]:
    data = synthetic(n)
    keys = [f"h{i}" for i in range(n)]
    rng = np.random.default_rng(11)
    picks = rng.integers(0, n, queries_count)
    queries = l2_normalize(data[picks] + rng.normal(scale=0.3 / np.sqrt(DIM), size=(queries_count, DIM)))

    exact, exact_build, exact_mem = build(lambda: ExactVectorIndex(DIM, initial_capacity=n), keys, data)
    exact_queries = queries if n < 1_000_000 else queries[: max(50, queries_count // 4)]
    truth, exact_lat = timed_search(exact, exact_queries)
    del exact
    hnsw, hnsw_build, hnsw_mem = build(
        lambda: HnswVectorIndex(
            DIM, connectivity=16, expansion_add=expansion_add, expansion_search=expansion_search
        ),
        keys,
        data,
    )
    found, hnsw_lat = timed_search(hnsw, queries)
    recall = sum(len(set(t) & set(f)) for t, f in zip(truth, found, strict=False)) / (K * len(truth))
    return [
        f"| {n:>9,} | exact | {exact_build:8.2f} s | {exact_mem:8.0f} MB | {percentile(exact_lat, 50):8.3f} "
        f"| {percentile(exact_lat, 99):8.3f} | 1.000 |",
        f"| {n:>9,} | hnsw  | {hnsw_build:8.2f} s | {hnsw_mem:8.0f} MB | {percentile(hnsw_lat, 50):8.3f} "
        f"| {percentile(hnsw_lat, 99):8.3f} | {recall:.3f} |",
    ]


async def embedding_row(name: str, embedder: Embedder, concurrency: int, texts: list[str]) -> str:
    queue = list(texts)
    latencies: list[float] = []

    async def worker() -> None:
        while queue:
            text = queue.pop()
            started = time.perf_counter()
            await embedder.embed([text])
            latencies.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    return (
        f"| {name:<12} | {concurrency:>11} | {len(texts) / elapsed:10.1f} | {percentile(latencies, 50):8.1f} "
        f"| {percentile(latencies, 99):8.1f} |"
    )


async def bench_embeddings(count: int, batch_wait_ms: float) -> list[str]:
    from phronesis.embeddings.local import LocalSentenceEmbedder

    model = LocalSentenceEmbedder()
    await model.embed(["warm up the model"])
    rows = []
    for concurrency in (1, 8, 32):
        # distinct texts per run so no cache could help; there is no cache in this stack anyway
        texts = [f"event {concurrency}-{i}: the user asked about item {i * 7 % 101}" for i in range(count)]
        rows.append(await embedding_row("single", model, concurrency, texts))  # one model call per text
        batcher = MicroBatchingEmbedder(model, max_batch_size=64, max_wait_ms=batch_wait_ms)
        rows.append(await embedding_row("micro-batched", batcher, concurrency, texts))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,100000,1000000")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--expansion-search", type=int, default=128)
    parser.add_argument("--expansion-add", type=int, default=128)
    parser.add_argument("--embed-texts", type=int, default=512)
    parser.add_argument("--batch-wait-ms", type=float, default=EmbeddingSettings().batch_max_wait_ms)
    parser.add_argument("--skip-index", action="store_true")
    parser.add_argument("--skip-embeddings", action="store_true")
    args = parser.parse_args()

    print(f"machine: {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB; dim {DIM}, k {K}")
    if not args.skip_index:
        print(
            f"\nVector index (HNSW: faiss IndexHNSWFlat M=16, ef_construction={args.expansion_add}, "
            f"ef_search={args.expansion_search})\n"
        )
        print("| heuristics | index | build | memory | match p50 ms | match p99 ms | recall@5 |")
        print("|---:|---|---:|---:|---:|---:|---:|")
        for size in (int(s) for s in args.sizes.split(",")):
            for line in bench_size(size, args.queries, args.expansion_search, args.expansion_add):
                print(line, flush=True)
    if not args.skip_embeddings:
        print(
            f"\nEmbedding throughput, local all-MiniLM-L6-v2 on CPU, {args.embed_texts} texts, one per call; "
            f"batcher: max 64, wait {args.batch_wait_ms:g} ms\n"
        )
        print("| mode | concurrency | texts/s | p50 ms | p99 ms |")
        print("|---|---:|---:|---:|---:|")
        for line in asyncio.run(bench_embeddings(args.embed_texts, args.batch_wait_ms)):
            print(line, flush=True)


if __name__ == "__main__":
    main()
