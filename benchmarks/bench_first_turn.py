"""A fresh server's first routed turn beside its warm turns (issue 45).

Before issue 45 the bundled router was fitted inside the first routed request of every new
process (5-25 s on two cores). Now a server fits it, or reads the fit an earlier start kept,
before it answers. For each of ``--starts`` starts of ``phronesis serve`` (the real local
model, no LLM, a new SQLite file each time): the time to ``/readyz``, the first routed turn,
then ``--warm`` more turns, each on a text new to the server (no embedding-cache hits).

Two cases: ``first start`` (the router cache directory empty: the fit happens at start-up) and
``later start`` (the directory holds the fit). Goal: first turn p50 ≤ 2× the warm p50. The
queries are of five kinds (a pricing question retrieves and checks sources, a booking chooses a
tool, …): start ``n``'s first turn is of kind ``n mod 5`` and its warm turns cycle through all
five, so first and warm turns are the same mix.

    .venv/bin/python benchmarks/bench_first_turn.py --starts 5 --warm 20
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

KEY = "sk-bench"
QUERIES = [
    "how much does the {n} plan cost per seat",
    "can you book a demo for {n} next week",
    "thanks, that answers my question about {n}",
    "I want to speak to a person about invoice {n}",
    "what does feature {n} do exactly",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(data: Path, routers: Path) -> tuple[subprocess.Popen[bytes], str, float]:
    port = free_port()
    env = {
        **os.environ,
        "PHRONESIS_DATA_DIR": str(data),
        "PHRONESIS_API__KEYS": json.dumps({KEY: "bench"}),
        "PHRONESIS_ROUTING__ROUTER_CACHE_DIR": str(routers),
        "PHRONESIS_LLM__SPEC": "none",
        "PHRONESIS_LOG_LEVEL": "warning",
        "PHRONESIS_PROACTIVE__SCHEDULER": "false",
    }
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "phronesis", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    while True:
        try:
            if httpx.get(f"{base}/readyz", timeout=5).status_code == 200:
                return process, base, time.perf_counter() - started
        except httpx.TransportError:
            pass
        if process.poll() is not None:
            raise SystemExit("the server exited during start-up")
        time.sleep(0.05)


def turn(client: httpx.Client, session: str, text: str) -> float:
    started = time.perf_counter()
    answer = client.post(f"/v1/sessions/{session}/route", json={"query": text})
    elapsed = (time.perf_counter() - started) * 1000
    answer.raise_for_status()
    return elapsed


def one_start(data: Path, routers: Path, warm: int, tag: int) -> tuple[float, float, list[float]]:
    process, base, ready_s = start(data, routers)
    try:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {KEY}"}, timeout=120) as client:
            for n in range(warm + 1):
                client.post("/v1/sessions", json={"id": f"s{tag}-{n}"}).raise_for_status()
            texts = [QUERIES[(tag + n) % len(QUERIES)].format(n=f"x{tag}y{n}") for n in range(warm + 1)]
            first = turn(client, f"s{tag}-0", texts[0])
            rest = [turn(client, f"s{tag}-{n}", texts[n]) for n in range(1, warm + 1)]
        return ready_s, first, rest
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--warm", type=int, default=20)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="phronesis-first-turn-"))
    rows = []
    try:
        for case in ("first start", "later start"):
            readies, firsts, warms = [], [], []
            for n in range(args.starts):
                # a first start has an empty cache; a later one reads what the first start of the run kept
                routers = scratch / f"routers-{n}" if case == "first start" else scratch / "routers-0"
                ready_s, first, rest = one_start(scratch / f"{case[0]}{n}", routers, args.warm, n)
                readies.append(ready_s)
                firsts.append(first)
                warms.extend(rest)
                print(f"{case} {n + 1}: ready {ready_s:.1f} s, first turn {first:.1f} ms", flush=True)
            rows.append((case, statistics.median(readies), statistics.median(firsts), statistics.median(warms)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print()
    print("| case | starts | start to /readyz p50 s | first turn p50 ms | warm turn p50 ms | first / warm |")
    print("|---|---:|---:|---:|---:|---:|")
    for case, ready, first, warm in rows:
        print(f"| {case} | {args.starts} | {ready:.1f} | {first:.1f} | {warm:.1f} | {first / warm:.2f}× |")


if __name__ == "__main__":
    main()
