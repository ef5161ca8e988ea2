"""GLADyS's ProcessEvent over gRPC beside the same decision over HTTP (issue 51's goal: ProcessEvent
p50 ≤ the HTTP decide p50).

One machine, one SQLite file, the real sentence model in each server, no LLM:
``--heuristics`` heuristics stored first ("when <topic i> happens" → "handle <topic i>"); then
``phronesis serve`` and ``phronesis grpc`` on that data directory, and for ``--events`` rounds one
HTTP ``POST /v1/events/decide`` and one gRPC ``ProcessEvent``, interleaved, each of a text neither
server has embedded before (so each call pays for its embedding), one at a time.

    cd benchmarks && python bench_gladys.py --heuristics 1000 --events 300
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import httpx

from bench_executive import free_port
from bench_heuristics import percentile
from phronesis.gladys.wire import common_pb2, executive_pb2, executive_pb2_grpc

TOPICS = ("the hall light", "the back door", "the kettle", "the washing", "the heating", "the post", "the car")


async def populate(data_dir: Path, count: int) -> None:
    from phronesis.engine import Engine
    from phronesis.heuristics.models import HeuristicCreate
    from phronesis.settings import Settings

    engine = Engine(Settings(data_dir=data_dir))
    await engine.start()
    heuristics = [
        HeuristicCreate(
            condition_text=f"when {TOPICS[i % len(TOPICS)]} number {i} needs attention",
            action_text=f"handle {TOPICS[i % len(TOPICS)]} number {i}",
            confidence=0.9,
        )
        for i in range(count)
    ]
    for start in range(0, count, 500):
        await engine.heuristics.add_many("default", heuristics[start : start + 500])
    await engine.close()


def start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "phronesis", *args], env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT
    )


async def wait_for(check: object, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            await check()  # type: ignore[operator]
            return
        except Exception:  # not up yet
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)


async def measure(data_dir: Path, events: int) -> tuple[list[float], list[float]]:
    env = {**os.environ, "PHRONESIS_DATA_DIR": str(data_dir), "PHRONESIS_PROACTIVE__SCHEDULER": "false"}
    http_port, grpc_port = free_port(), free_port()
    servers = [
        start(["serve", "--dev", "--port", str(http_port)], env, data_dir / "serve.log"),
        start(["grpc", "--executive-port", str(grpc_port)], env, data_dir / "grpc.log"),
    ]
    try:
        async with (
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{http_port}", timeout=30) as http,
            grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}") as channel,
        ):
            stub = executive_pb2_grpc.ExecutiveServiceStub(channel)

            async def http_up() -> None:
                (await http.get("/readyz")).raise_for_status()

            async def grpc_up() -> None:
                await stub.ProcessEvent(executive_pb2.ProcessEventRequest(event=common_pb2.Event(raw_text="warm up")))

            await wait_for(http_up)
            await wait_for(grpc_up)
            await http.post("/v1/events/decide", json={"text": "warm up too"})
            over_http, over_grpc = [], []
            for i in range(events):
                topic = TOPICS[i % len(TOPICS)]
                text = f"{topic} number {i} needs attention right now, round {i}"
                started = time.perf_counter()
                (
                    await http.post("/v1/events/decide", json={"text": f"{text} (http)", "source": "home"})
                ).raise_for_status()
                over_http.append(time.perf_counter() - started)
                request = executive_pb2.ProcessEventRequest(
                    event=common_pb2.Event(raw_text=f"{text} (grpc)", source="home"), immediate=True
                )
                started = time.perf_counter()
                await stub.ProcessEvent(request)
                over_grpc.append(time.perf_counter() - started)
            return over_http, over_grpc
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heuristics", type=int, default=1000)
    parser.add_argument("--events", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        asyncio.run(populate(data_dir, args.heuristics))
        over_http, over_grpc = asyncio.run(measure(data_dir, args.events))
    print(f"{args.heuristics} heuristics, {args.events} events each way, one at a time, the real model, no LLM\n")
    print("| call | n | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|")
    for name, samples in (("HTTP POST /v1/events/decide", over_http), ("gRPC ProcessEvent", over_grpc)):
        print(
            f"| {name} | {len(samples)} | {percentile(samples, 50) * 1000:.1f} | {percentile(samples, 99) * 1000:.1f} |"
        )


if __name__ == "__main__":
    main()
