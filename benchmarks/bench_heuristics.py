"""Heuristic memory benchmark: vector index build/match at 1k/100k/1M, and embedding throughput.

Prints two tables:

1. For each size: index build time and memory, match latency p50/p99 (excluding
   embedding) for exact numpy search and HNSW (faiss), and HNSW recall@5 against exact.
2. Embedding throughput of the real local model, one text per call, unbatched vs through
   the micro-batcher, at concurrency 1/8/32.

Workload: the real model's embeddings of the CLINC150 train utterances (15,100
assistant requests, 150 intents, ``../shared/data``) are planted in the index as
heuristic conditions; queries are held-out CLINC150 validation utterances, i.e. new
paraphrases of stored intents, as events are. Larger sizes add background vectors drawn
from a Gaussian with the mean and covariance of the real embeddings (so they have the
real model's spectrum), normalised. Two recalls are reported against exact search:
raw recall@5, and recall of the true top-5 matches at or above the matcher's
``min_similarity`` 0.7, which is what matching actually returns.

    python benchmarks/bench_heuristics.py --sizes 1000,100000,1000000
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import psutil

from phronesis.embeddings.batcher import MicroBatchingEmbedder
from phronesis.embeddings.settings import EmbeddingSettings
from phronesis.embeddings.types import Embedder, Vectors, l2_normalize
from phronesis.storage.hnsw_index import HnswVectorIndex
from phronesis.storage.settings import IndexSettings
from phronesis.storage.vector_index import ExactVectorIndex, VectorIndex

DIM = 384
K = 5


def rss_mb() -> float:
    gc.collect()
    return psutil.Process(os.getpid()).memory_info().rss / 2**20


DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


MIN_SIMILARITY = 0.7


def clinc_texts(data_dir: Path, *splits: str) -> list[str]:
    data = json.loads((data_dir / "clinc150" / "clinc150_train_val.json").read_text())
    return [text for split in splits for text, _intent in data[split]]


class SpectrumSampler:
    """Draws unit vectors from a Gaussian fitted to real embeddings (mean + covariance)."""

    def __init__(self, real: Vectors) -> None:
        self.mean = real.mean(axis=0)
        eigenvalues, eigenvectors = np.linalg.eigh(np.cov(real - self.mean, rowvar=False))
        self.scale = (eigenvectors * np.sqrt(np.clip(eigenvalues, 0, None))).T.astype(np.float32)
        share = np.sort(eigenvalues)[::-1].cumsum() / eigenvalues.sum()
        self.dims_for_90 = int(np.searchsorted(share, 0.9)) + 1

    def sample(self, n: int, seed: int) -> Vectors:
        rng = np.random.default_rng(seed)
        out = np.empty((n, DIM), dtype=np.float32)
        for start in range(0, n, 100_000):
            stop = min(n, start + 100_000)
            z = rng.standard_normal((stop - start, DIM), dtype=np.float32)
            out[start:stop] = l2_normalize(self.mean + z @ self.scale)
        return out


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def timed_search(index: VectorIndex, queries: Vectors) -> tuple[list[list[tuple[str, float]]], list[float]]:
    results, latencies = [], []
    for query in queries:
        started = time.perf_counter()
        hits = index.search(query, K)
        latencies.append((time.perf_counter() - started) * 1000)
        results.append(hits)
    return results, latencies


def recalls(truth: list[list[tuple[str, float]]], found: list[list[tuple[str, float]]]) -> tuple[float, float]:
    """(recall@K, recall of true top-K hits with similarity >= MIN_SIMILARITY)."""
    hit = total = match_hit = match_total = 0
    for true_hits, found_hits in zip(truth, found, strict=False):
        returned = {key for key, _ in found_hits}
        hit += sum(key in returned for key, _ in true_hits)
        total += len(true_hits)
        matches = [key for key, score in true_hits if score >= MIN_SIMILARITY]
        match_hit += sum(key in returned for key in matches)
        match_total += len(matches)
    return hit / max(total, 1), match_hit / max(match_total, 1)


def build(factory: Callable[[], VectorIndex], keys: list[str], data: Vectors) -> tuple[VectorIndex, float, float]:
    before = rss_mb()
    started = time.perf_counter()
    index = factory()
    for start in range(0, len(keys), 50_000):
        index.upsert(keys[start : start + 50_000], data[start : start + 50_000])
    return index, time.perf_counter() - started, rss_mb() - before


def bench_size(
    label: str, data: Vectors, queries: Vectors, expansion_search: int, expansion_add: int, connectivity: int
) -> list[str]:
    n = len(data)
    queries_count = len(queries)
    keys = [f"h{i}" for i in range(n)]

    exact, exact_build, exact_mem = build(lambda: ExactVectorIndex(DIM, initial_capacity=n), keys, data)
    exact_queries = queries if n < 1_000_000 else queries[: max(50, queries_count // 4)]
    truth, exact_lat = timed_search(exact, exact_queries)
    del exact
    hnsw, hnsw_build, hnsw_mem = build(
        lambda: HnswVectorIndex(
            DIM, connectivity=connectivity, expansion_add=expansion_add, expansion_search=expansion_search
        ),
        keys,
        data,
    )
    found, hnsw_lat = timed_search(hnsw, queries)
    recall, match_recall = recalls(truth, found)
    return [
        f"| {label:>14} | exact | {exact_build:8.2f} s | {exact_mem:8.0f} MB | {percentile(exact_lat, 50):8.3f} "
        f"| {percentile(exact_lat, 99):8.3f} | 1.000 | 1.000 |",
        f"| {label:>14} | hnsw  | {hnsw_build:8.2f} s | {hnsw_mem:8.0f} MB | {percentile(hnsw_lat, 50):8.3f} "
        f"| {percentile(hnsw_lat, 99):8.3f} | {recall:.3f} | {match_recall:.3f} |",
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
    parser.add_argument("--expansion-search", type=int, default=IndexSettings().hnsw_expansion_search)
    parser.add_argument("--expansion-add", type=int, default=IndexSettings().hnsw_expansion_add)
    parser.add_argument("--embed-texts", type=int, default=512)
    parser.add_argument("--batch-wait-ms", type=float, default=EmbeddingSettings().batch_max_wait_ms)
    parser.add_argument("--skip-index", action="store_true")
    parser.add_argument("--skip-embeddings", action="store_true")
    parser.add_argument("--connectivity", type=int, default=IndexSettings().hnsw_connectivity)
    parser.add_argument("--data-dir", type=Path, default=DATA)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]

    print(f"machine: {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB; dim {DIM}, k {K}")
    if not args.skip_index:
        from phronesis.embeddings.local import LocalSentenceEmbedder

        model = LocalSentenceEmbedder()
        planted = model.embed_sync(clinc_texts(args.data_dir, "train", "oos_train"))
        queries = model.embed_sync(clinc_texts(args.data_dir, "val")[: args.queries])
        sampler = SpectrumSampler(planted)
        with_match = float(np.mean((queries @ planted.T).max(axis=1) >= MIN_SIMILARITY))
        print(
            f"\nPlanted: {len(planted):,} real CLINC150 train embeddings ({sampler.dims_for_90} of 384 principal "
            f"directions carry 90 % of their variance); {len(queries)} held-out queries, "
            f"{with_match:.0%} with a planted match >= {MIN_SIMILARITY}"
        )
        print(
            f"Vector index (HNSW: faiss IndexHNSWFlat M={args.connectivity}, ef_construction={args.expansion_add}, "
            f"ef_search={args.expansion_search})\n"
        )
        print("| heuristics | index | build | memory | p50 ms | p99 ms | recall@5 | recall of matches >= 0.7 |")
        print("|---:|---|---:|---:|---:|---:|---:|---:|")
        for size in sizes:
            if size <= len(planted):
                data = planted[np.random.default_rng(3).choice(len(planted), size, replace=False)]
            else:
                data = np.concatenate([planted, sampler.sample(size - len(planted), seed=7)])
            for line in bench_size(
                f"{size:,}", data, queries, args.expansion_search, args.expansion_add, args.connectivity
            ):
                print(line, flush=True)
            del data
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
