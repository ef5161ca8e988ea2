"""Decisions over HTTP beside the bare encode (issue 27): executive, routing and admission.

One run, one machine, one database:

- **set-up**: ``--heuristics`` heuristics (the 15,100 CLINC150 train utterances embedded by
  the real model, background vectors from their spectrum up to the total, as in
  ``bench_executive``), the local router fitted on the CLINC150 train lines (``bench_routing``),
  no stored runs; a SQLite file.
- **servers**: ``phronesis serve --workers N`` in a process of its own for each runtime in
  ``--runtimes`` (``PHRONESIS_EMBEDDINGS__RUNTIME``: ``torch`` is the model as it ran before
  issue 27, ``onnx`` the ONNX Runtime export) and each ``--workers``; no LLM.
- **one client**: for each endpoint, requests one at a time, each followed by the bare
  ``encode`` of another new text in this process with the same runtime (interleaved, so both
  see the same machine): p50/p99 of each and their ratio (goal ≤ 1.5×).
- **many clients** (``--clients``, default 32): decisions per second per endpoint (goal ≥ 300/s
  for the executive). Routing's sessions are created before the clock starts.

- **sustained admissions** (``--sustained``, default 2,000): runs admitted one at a time on the
  same server after the rest, p50 per block of 500: an admission's cost must not grow with the
  runs admitted before it (issue 27: every admission read the change feed back to the first).

Every text is new to the server (no embedding-cache hits): held-out CLINC150 validation
utterances whose best heuristic match is ≥ 0.75 (the heuristic path), reworded on each pass.

    cd benchmarks && python bench_http.py --heuristics 100000 --workers 1,2 --runtimes torch,onnx
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import psutil

from bench_executive import API_KEY, TENANT, DistinctTexts, free_port, populate
from bench_heuristics import DATA, percentile
from bench_routing import load
from phronesis.embeddings.local import LocalSentenceEmbedder

ENDPOINTS = ("executive", "routing", "admission")
Call = Callable[[httpx.AsyncClient, str, int], Awaitable[httpx.Response]]


async def fit_router(db_path: Path, data_dir: Path) -> None:
    """The CLINC150 router, fitted once and stored where every server reads it."""
    from phronesis.embeddings.cache import CachedEmbedder
    from phronesis.engine import Engine
    from phronesis.routing.local_router import LocalRouter
    from phronesis.settings import Settings

    splits = load(data_dir)
    embedder = CachedEmbedder(LocalSentenceEmbedder())
    router = await LocalRouter.fit(splits["train"], embedder, oos=splits["oos_train"])
    engine = Engine(Settings(database={"url": f"sqlite+aiosqlite:///{db_path}"}, llm={"spec": "none"}))
    await engine.start()
    await engine.routing.store.save(TENANT, "default", router)
    await engine.close()


def start_server(db_path: Path, workers: int, runtime: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = {
        **os.environ,
        "PHRONESIS_DATABASE__URL": f"sqlite+aiosqlite:///{db_path}",
        "PHRONESIS_API__KEYS": json.dumps({API_KEY: TENANT}),
        "PHRONESIS_EMBEDDINGS__RUNTIME": runtime,
        "PHRONESIS_LLM__SPEC": "none",
        "PHRONESIS_LOG_LEVEL": "warning",
    }
    return serve(env, workers, log, timeout_s=600)


def serve(env: dict[str, str], workers: int, log: Path, *, timeout_s: float) -> tuple[subprocess.Popen[bytes], str]:
    """``phronesis serve --workers N`` with ``env`` on a free port, once ``/healthz`` answers."""
    port = free_port()
    command = [sys.executable, "-m", "phronesis", "serve", "--port", str(port), "--workers", str(workers)]
    process = subprocess.Popen(command, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited during start-up (see {log})")
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return process, base
        except httpx.HTTPError:
            time.sleep(0.25)
    process.kill()
    raise RuntimeError(f"server did not start within {timeout_s:g} s")


def stop(process: subprocess.Popen[bytes]) -> float:
    """Stop the server; its processes' RSS (MB) just before."""
    try:
        tree = [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
        rss = sum(p.memory_info().rss for p in tree) / 2**20
    except psutil.Error:
        rss = float("nan")
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
    return rss


async def decide(client: httpx.AsyncClient, text: str, n: int) -> httpx.Response:
    return await client.post("/v1/events/decide", json={"text": text, "source": f"sensor-{n}"})


async def route(client: httpx.AsyncClient, text: str, n: int) -> httpx.Response:
    return await client.post(f"/v1/sessions/s{n}/route", json={"query": text})


async def admit(client: httpx.AsyncClient, text: str, n: int) -> httpx.Response:
    return await client.post("/v1/runs", json={"agent_id": "bench", "task": text, "outcome": "success"})


CALLS: dict[str, Call] = {"executive": decide, "routing": route, "admission": admit}


class Numbers:
    """Request numbers never used before in this run (sessions and event sources are per request)."""

    def __init__(self, start: int) -> None:
        self._next = start

    def take(self, count: int) -> list[int]:
        taken = list(range(self._next, self._next + count))
        self._next += count
        return taken


async def sessions(client: httpx.AsyncClient, numbers: list[int], concurrency: int) -> None:
    queue = list(numbers)

    async def worker() -> None:
        while queue:
            (await client.post("/v1/sessions", json={"id": f"s{queue.pop()}"})).raise_for_status()

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def one_client(
    client: httpx.AsyncClient, endpoint: str, texts: DistinctTexts, numbers: list[int], model: LocalSentenceEmbedder
) -> tuple[list[float], list[float]]:
    """Each request, then the bare encode of another new text: both latencies (ms)."""
    call = CALLS[endpoint]
    if endpoint == "routing":
        await sessions(client, numbers, 4)
    http: list[float] = []
    bare: list[float] = []
    for n in numbers:
        started = time.perf_counter()
        response = await call(client, texts.take(), n)
        http.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
        other = texts.take()
        started = time.perf_counter()
        model.embed_sync([other])
        bare.append((time.perf_counter() - started) * 1000)
    return http, bare


async def many_clients(
    client: httpx.AsyncClient, endpoint: str, texts: DistinctTexts, numbers: list[int], concurrency: int
) -> tuple[float, list[float]]:
    call = CALLS[endpoint]
    if endpoint == "routing":
        await sessions(client, numbers, concurrency)
    queue = list(numbers)
    latencies: list[float] = []

    async def worker() -> None:
        while queue:
            n = queue.pop()
            started = time.perf_counter()
            response = await call(client, texts.take(), n)
            latencies.append((time.perf_counter() - started) * 1000)
            response.raise_for_status()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return len(numbers) / (time.perf_counter() - started), latencies


async def measure(
    base: str,
    texts: DistinctTexts,
    numbers: Numbers,
    model: LocalSentenceEmbedder,
    args: argparse.Namespace,
    label: str,
) -> list[str]:
    rows: list[str] = []
    limits = httpx.Limits(max_connections=args.clients, max_keepalive_connections=args.clients)
    headers = {"Authorization": f"Bearer {API_KEY}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=120) as client:
        for endpoint in ENDPOINTS:  # warm every worker: model, router, indexes
            await many_clients(client, endpoint, texts, numbers.take(args.warmup), 4)
        for _ in range(20):
            model.embed_sync([texts.take()])
        for endpoint in ENDPOINTS:
            http, bare = await one_client(client, endpoint, texts, numbers.take(args.requests), model)
            rate, loaded = await many_clients(client, endpoint, texts, numbers.take(args.requests), args.clients)
            h50, h99, b50, b99 = percentile(http, 50), percentile(http, 99), percentile(bare, 50), percentile(bare, 99)
            rows.append(
                f"| {label} | {endpoint} | {h50:.1f} | {h99:.1f} | {b50:.1f} | {b99:.1f} | {h50 / b50:.2f}× | "
                f"{h99 / b99:.2f}× | {rate:,.0f} | {percentile(loaded, 50):.0f} | {percentile(loaded, 99):.0f} |"
            )
            print(rows[-1], flush=True)
    return rows


async def sustained(base: str, texts: DistinctTexts, numbers: Numbers, count: int, label: str) -> list[str]:
    """Admissions one after another: p50 per block of 500 (the cost of the runs admitted before)."""
    headers = {"Authorization": f"Bearer {API_KEY}"}
    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=120) as client:
        for n in numbers.take(count):
            started = time.perf_counter()
            (await admit(client, texts.take(), n)).raise_for_status()
            latencies.append((time.perf_counter() - started) * 1000)
    rows = []
    for start in range(0, count, 500):
        block = latencies[start : start + 500]
        rows.append(
            f"| {label} | {start + 1:,}–{start + len(block):,} | {percentile(block, 50):.1f} | "
            f"{percentile(block, 99):.1f} |"
        )
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--heuristics", type=int, default=100_000)
    parser.add_argument("--workers", default="1,2", help="server processes, e.g. 1,2")
    parser.add_argument("--runtimes", default="torch,onnx", help="PHRONESIS_EMBEDDINGS__RUNTIME values")
    parser.add_argument("--requests", type=int, default=300, help="requests per endpoint and client count")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--warmup", type=int, default=40, help="requests per endpoint before measuring")
    parser.add_argument("--sustained", type=int, default=2000, help="admissions one at a time after the rest")
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument(
        "--scratch", type=Path, default=None, help="keep the set-up here and reuse it (default: a temporary directory)"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-http-") as temporary:
        scratch = args.scratch or Path(temporary)
        db_path = scratch / f"bench-{args.heuristics}.db"
        events_path = db_path.with_suffix(".events.json")
        started = time.perf_counter()
        if not events_path.exists():  # set up once per --scratch directory (several minutes)
            db_path.unlink(missing_ok=True)
            events, _ = asyncio.run(populate(db_path, args.heuristics, args.data_dir))
            asyncio.run(fit_router(db_path, args.data_dir))
            events_path.write_text(json.dumps(events))
        events = json.loads(events_path.read_text())
        work = scratch / "run.db"  # each invocation starts from the set-up (admission stores what it admits)
        shutil.copyfile(db_path, work)
        print(
            f"set-up: {args.heuristics:,} heuristics and the CLINC150 router in {time.perf_counter() - started:.0f} s; "
            f"{len(events):,} held-out events on the heuristic path, reworded on each pass; {os.cpu_count()} cores\n",
            flush=True,
        )
        header = [
            "| runtime, workers | endpoint | HTTP p50 ms | HTTP p99 ms | bare encode p50 ms | bare encode p99 ms "
            f"| p50 ratio | p99 ratio | {args.clients} clients: decisions/s | p50 ms | p99 ms |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        print("\n".join(header), flush=True)
        rows: list[str] = []
        kept: list[str] = []
        memory: list[str] = []
        texts = DistinctTexts(events)
        numbers = Numbers(int(time.time() * 1000))  # session ids and event sources new to a reused database
        for runtime in args.runtimes.split(","):
            model = LocalSentenceEmbedder(runtime=runtime)  # type: ignore[arg-type]
            model.embed_sync(["warm up"])
            for workers in (int(w) for w in args.workers.split(",")):
                label = f"{model.runtime}, {workers}"
                process, base = start_server(work, workers, runtime, scratch / "server.log")
                try:
                    rows += asyncio.run(measure(base, texts, numbers, model, args, label))
                    if args.sustained:
                        kept += asyncio.run(sustained(base, texts, numbers, args.sustained, label))
                finally:
                    memory.append(f"{label}: {stop(process):.0f} MB")
        print("\n" + "\n".join(header + rows))
        if kept:
            print("\nAdmissions one at a time, after the rest (the runs before them on the same server):\n")
            print("\n".join(["| runtime, workers | admissions | p50 ms | p99 ms |", "|---|---|---:|---:|", *kept]))
        print("\nserver RSS after the runs (all processes): " + "; ".join(memory))


if __name__ == "__main__":
    main()
