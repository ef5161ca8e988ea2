"""Executive benchmark (seed 000): the HTTP decide endpoint, and decide() overhead.

Prints three tables:

1. ``POST /v1/events/decide`` over loopback HTTP against a real ``phronesis`` server in
   its own process (uvicorn, SQLite file, local all-MiniLM-L6-v2, the micro-batcher) with
   100k heuristics: throughput and client-side p50/p99 at concurrency 1, 8 and 32, on the
   heuristic path and on the LLM path (a scripted LLM that takes 200 ms per call; the LLM
   path makes two calls: answer and success prediction).
2. decide() overhead, in process, excluding embedding and LLM: the strategy alone, and the
   whole pipeline (candidates from the 100k index, strategy, decision record + fire in
   one transaction) with the event's embedding precomputed.
3. Server memory (RSS) after loading 100k heuristics and after the runs.

Workload: the 15,100 CLINC150 train utterances (``../shared/data``) embedded by the real
model are heuristic conditions at confidence 0.9; background heuristics up to 100k carry
vectors drawn from the real embeddings' spectrum (see bench_heuristics.py). Events are
held-out CLINC150 validation utterances whose best planted match is >= 0.75, so they take
the heuristic path, never repeated (no embedding-cache hits); the LLM-path runs force
``always_llm``.

    python benchmarks/bench_executive.py [--heuristics 100000] [--requests 600]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
import psutil

from bench_heuristics import DATA, SpectrumSampler, clinc_texts, percentile, rss_mb
from phronesis.executive import DecisionContext, HeuristicFirstStrategy
from phronesis.executive.events import EventRequest
from phronesis.heuristics.models import HeuristicCreate
from phronesis.settings import Settings
from phronesis.storage.database import Database

API_KEY = "bench-key"
TENANT = "bench"
LLM_LATENCY_S = 0.2


def settings_for(db_path: Path, max_concurrent_llm: int, *, observe: bool = True) -> Settings:
    return Settings(
        database={"url": f"sqlite+aiosqlite:///{db_path}"},
        api={"keys": {API_KEY: TENANT}},
        executive={"max_concurrent_llm": max_concurrent_llm, "observe_on_decide": observe},
        llm={"max_concurrency": max_concurrent_llm},
        proactive={"scheduler": False},
    )


def scripted_llm(latency_s: float) -> object:
    from phronesis.llm.types import LLMRequest
    from phronesis.testing import ScriptedLLM

    def respond(request: LLMRequest) -> str:
        if "Predict the probability" in request.prompt:
            return '{"success": 0.7, "confidence": 0.6}'
        return "I can help with that; let me look it up for you right away."

    return ScriptedLLM(respond, latency_s=latency_s, model_name="scripted-200ms")


# ---------------------------------------------------------------- server process


def serve(db_path: Path, port: int, max_concurrent_llm: int, *, observe: bool = True) -> None:
    import uvicorn

    from phronesis.engine import Engine
    from phronesis.server import create_app

    settings = settings_for(db_path, max_concurrent_llm, observe=observe)
    engine = Engine(settings, llm=scripted_llm(LLM_LATENCY_S))  # type: ignore[arg-type]
    uvicorn.run(create_app(engine), host="127.0.0.1", port=port, log_level="warning", access_log=False)


# ---------------------------------------------------------------- set-up


async def populate(db_path: Path, total: int, data_dir: Path) -> tuple[list[str], float]:
    """Store ``total`` heuristics with their embeddings; returns heuristic-path event texts and seconds taken."""
    from phronesis.embeddings.local import LocalSentenceEmbedder
    from phronesis.heuristics.repository import HeuristicRepository
    from phronesis.storage.migrate import upgrade

    started = time.perf_counter()
    model = LocalSentenceEmbedder()
    conditions = clinc_texts(data_dir, "train")
    planted = model.embed_sync(conditions)
    events = clinc_texts(data_dir, "val")
    event_vectors = model.embed_sync(events)
    best = (event_vectors @ planted.T).max(axis=1)
    heuristic_events = [text for text, score in zip(events, best, strict=True) if score >= 0.75]

    background = SpectrumSampler(planted).sample(max(0, total - len(planted)), seed=11)
    database = Database(f"sqlite+aiosqlite:///{db_path}")
    await upgrade(database)
    repository = HeuristicRepository(database)
    rows = [
        HeuristicCreate(condition_text=text, action_text=f"handle request: {text[:80]}", confidence=0.9)
        for text in conditions[:total]
    ] + [
        HeuristicCreate(condition_text=f"background situation {i}", action_text="background action", confidence=0.5)
        for i in range(len(background))
    ]
    vectors = np.concatenate([planted[:total], background]) if len(background) else planted[:total]
    for start in range(0, len(rows), 10_000):
        await repository.create_many(
            TENANT, rows[start : start + 10_000], vectors[start : start + 10_000], model.model_name
        )
    await database.dispose()
    return heuristic_events, time.perf_counter() - started


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    db_path: Path, max_concurrent_llm: int, *, observe: bool = True
) -> tuple[subprocess.Popen[bytes], str, float]:
    port = free_port()
    started = time.perf_counter()
    command = [sys.executable, __file__, "--serve", str(db_path), "--port", str(port), "--llm", str(max_concurrent_llm)]
    process = subprocess.Popen(
        [*command, *([] if observe else ["--no-observe"])],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)},
    )
    base = f"http://127.0.0.1:{port}"
    while True:
        if process.poll() is not None:
            raise RuntimeError("server exited during start-up")
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return process, base, time.perf_counter() - started
        except httpx.HTTPError:
            time.sleep(0.25)


# ---------------------------------------------------------------- HTTP load


class DistinctTexts:
    """Event texts never sent before, so the server's embedding cache never helps: each
    request pays for a model forward pass. After one pass through the held-out events the
    same events come back reworded ("… please", "… thanks", …)."""

    SUFFIXES = ("", " please", " thanks", " right now", " if you can", " for me")

    def __init__(self, texts: list[str]) -> None:
        self._texts = list(texts)
        random.Random(5).shuffle(self._texts)
        self._next = 0

    def take(self) -> str:
        text, round_ = self._texts[self._next % len(self._texts)], self._next // len(self._texts)
        self._next += 1
        return text + self.SUFFIXES[round_ % len(self.SUFFIXES)]


class RepeatedTexts:
    """A small pool of events seen before: the embedding cache answers, so the run shows the
    cost of everything but the model (recurring events are common for sensor-like sources)."""

    def __init__(self, texts: list[str], pool: int = 200) -> None:
        self.pool = texts[:pool]
        self._next = 0

    def take(self) -> str:
        self._next += 1
        return self.pool[self._next % len(self.pool)]


SOURCES = itertools.count()
"""Event sources, never reused across runs: each request is an independent event."""


async def http_run(
    base: str,
    texts: DistinctTexts | RepeatedTexts,
    concurrency: int,
    requests: int,
    strategy: str | None,
    *,
    source: str | None = None,
) -> tuple[float, list[float], dict[str, int]]:
    queue = list(range(requests))
    latencies: list[float] = []
    paths: dict[str, int] = {}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(
        base_url=base, headers={"Authorization": f"Bearer {API_KEY}"}, limits=limits, timeout=60
    ) as client:

        async def worker() -> None:
            while queue:
                queue.pop()
                # a source of its own per request: independent events, not follow-ups to one another
                # (decide observes its source's open fires; the check still runs, as one read)
                body: dict[str, object] = {"text": texts.take(), "source": source or f"sensor-{next(SOURCES)}"}
                if strategy is not None:
                    body["strategy"] = strategy
                started = time.perf_counter()
                response = await client.post("/v1/events/decide", json=body)
                latencies.append((time.perf_counter() - started) * 1000)
                response.raise_for_status()
                path = response.json()["decision_path"]
                paths[path] = paths.get(path, 0) + 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    return requests / elapsed, latencies, paths


def one_source(db_path: Path, texts: list[str], args: argparse.Namespace) -> None:
    """Every event from one source (issue 46): each decide is also a follow-up to that source's open
    fires, which used to cost 17 ms more than with the observation off at 15k heuristics."""
    print("Every event from one source (``home``), one client: decide with its follow-up observation on and off\n")
    print("| observe_on_decide | requests | p50 ms | p99 ms | paths taken |")
    print("|---|---:|---:|---:|---|")
    for observe in (True, False, True, False):
        process, base, _ = start_server(db_path, args.max_concurrent_llm, observe=observe)
        try:
            events = DistinctTexts(texts)
            asyncio.run(http_run(base, events, 1, 50, None, source="home"))  # warm-up: fires open on the source
            _, latencies, paths = asyncio.run(http_run(base, events, 1, args.requests, None, source="home"))
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)
        taken = ", ".join(f"{k} {v}" for k, v in sorted(paths.items()))
        print(
            f"| {'on' if observe else 'off'} | {args.requests} | {percentile(latencies, 50):.1f} "
            f"| {percentile(latencies, 99):.1f} | {taken} |",
            flush=True,
        )


# ---------------------------------------------------------------- in-process overhead


async def overhead(db_path: Path, texts: list[str], count: int) -> list[str]:
    """decide() without embedding and LLM: the strategy alone, then the pipeline with precomputed vectors."""
    from phronesis.embeddings.local import LocalSentenceEmbedder
    from phronesis.engine import Engine

    model = LocalSentenceEmbedder()
    sample = texts[:count]
    vectors = {text: vector for text, vector in zip(sample, model.embed_sync(sample), strict=True)}

    class Precomputed:
        """The real model's vectors, looked up: the embedding cost is left out on purpose."""

        dimension = model.dimension
        model_name = model.model_name

        async def embed(self, batch: list[str]) -> np.ndarray:
            return np.stack([vectors[text] for text in batch])

    engine = Engine(settings_for(db_path, 3), embedder=Precomputed(), llm=None)  # type: ignore[arg-type]
    await engine.start()
    pipeline: list[float] = []
    contexts: list[DecisionContext] = []
    for text in sample:
        started = time.perf_counter()
        request = EventRequest(text=text, source=f"sensor-{len(pipeline)}")  # independent events, as over HTTP
        decision = await engine.executive.decide_event(TENANT, request)
        pipeline.append((time.perf_counter() - started) * 1000)
        contexts.append(DecisionContext(event_id="e", event_text=text, candidates=decision.candidates, immediate=True))
    await engine.close()

    strategy = HeuristicFirstStrategy()
    alone: list[float] = []
    for context in contexts * 5:
        started = time.perf_counter()
        await strategy.decide(context, None)
        alone.append((time.perf_counter() - started) * 1000)
    return [
        f"| strategy.decide() alone | {len(alone)} | {percentile(alone, 50):.4f} | {percentile(alone, 99):.4f} |",
        f"| pipeline without embedding/LLM (index + strategy + record + fire) | {len(pipeline)} "
        f"| {percentile(pipeline, 50):.3f} | {percentile(pipeline, 99):.3f} |",
    ]


# ---------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heuristics", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=600, help="HTTP requests per heuristic-path run")
    parser.add_argument("--llm-requests", type=int, default=96, help="HTTP requests per LLM-path run")
    parser.add_argument("--concurrency", default="1,8,32")
    parser.add_argument("--max-concurrent-llm", type=int, default=3, help="seed 000 default: 3")
    parser.add_argument("--overhead-events", type=int, default=1000)
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument(
        "--one-source",
        action="store_true",
        help="then every event from one source, with decide's follow-up observation on and off (issue 46)",
    )
    parser.add_argument("--no-observe", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--llm", type=int, default=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.port, args.llm, observe=not args.no_observe)
        return

    levels = [int(c) for c in args.concurrency.split(",")]
    print(f"machine: {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB")
    with tempfile.TemporaryDirectory(prefix="phronesis-bench-") as scratch:
        db_path = Path(scratch) / "bench.db"
        texts, setup_s = asyncio.run(populate(db_path, args.heuristics, args.data_dir))
        print(
            f"set-up: {args.heuristics:,} heuristics stored with embeddings in {setup_s:.0f} s; "
            f"{len(texts)} held-out events with a match >= 0.75"
        )
        process, base, start_s = start_server(db_path, args.max_concurrent_llm)
        server = psutil.Process(process.pid)
        loaded_mb = server.memory_info().rss / 2**20
        try:
            print(f"server start (migrate + index load of {args.heuristics:,} + model warm-up): {start_s:.1f} s\n")
            print(
                f"POST /v1/events/decide over loopback HTTP, {args.heuristics:,} heuristics, local model, "
                f"micro-batcher; LLM: scripted, {LLM_LATENCY_S * 1000:.0f} ms per call, "
                f"max_concurrent_llm {args.max_concurrent_llm}\n"
            )
            print("| path | concurrency | requests | decisions/s | p50 ms | p99 ms | paths taken |")
            print("|---|---:|---:|---:|---:|---:|---|")
            repeated = RepeatedTexts(texts[:200])
            events = DistinctTexts(texts[200:])  # disjoint from the cached pool
            asyncio.run(http_run(base, events, 8, 64, None))  # warm-up
            asyncio.run(http_run(base, repeated, 8, len(repeated.pool), None))  # the pool is now cached
            for label, source, strategy, requests in (
                ("heuristic", events, None, args.requests),
                ("heuristic, repeated events (cache)", repeated, None, args.requests),
                ("llm", events, "always_llm", args.llm_requests),
            ):
                for concurrency in levels:
                    rate, latencies, paths = asyncio.run(http_run(base, source, concurrency, requests, strategy))
                    taken = ", ".join(f"{k} {v}" for k, v in sorted(paths.items()))
                    print(
                        f"| {label} | {concurrency} | {requests} | {rate:.1f} | {percentile(latencies, 50):.1f} "
                        f"| {percentile(latencies, 99):.1f} | {taken} |",
                        flush=True,
                    )
            after_mb = server.memory_info().rss / 2**20
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)
        print(f"\nserver RSS: {loaded_mb:.0f} MB after start-up, {after_mb:.0f} MB after the runs\n")
        if args.one_source:
            one_source(db_path, texts, args)
        print("decide() overhead, in process, excluding embedding and LLM (heuristic path)\n")
        print("| what | calls | p50 ms | p99 ms |")
        print("|---|---:|---:|---:|")
        for line in asyncio.run(overhead(db_path, texts, min(args.overhead_events, len(texts)))):
            print(line, flush=True)
        print(f"\nbench process RSS: {rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
