"""Every GLADyS call phronesis serves over gRPC beside its HTTP twin, the same work (issue 51's goal:
ProcessEvent p50 ≤ the HTTP decide p50).

One machine, one SQLite file, the real sentence model in each server, no LLM:
``--heuristics`` heuristics stored first ("when <topic i> happens" → "handle <topic i>"); then
``phronesis serve`` and ``phronesis grpc`` on that data directory, and for ``--events`` rounds one
call of each RPC and one of its HTTP twin, interleaved, one at a time; every text is one neither
server has embedded before (so each call pays for its embedding).

    cd benchmarks && python bench_gladys.py --heuristics 1000 --events 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc
import httpx

from bench_executive import free_port
from bench_heuristics import percentile
from phronesis.gladys.wire import common_pb2, executive_pb2, executive_pb2_grpc, memory_pb2, memory_pb2_grpc, types_pb2

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


Call = Callable[[int], Awaitable[object]]


async def measure(data_dir: Path, events: int) -> dict[str, list[float]]:
    env = {**os.environ, "PHRONESIS_DATA_DIR": str(data_dir), "PHRONESIS_PROACTIVE__SCHEDULER": "false"}
    http_port, executive_port, memory_port = free_port(), free_port(), free_port()
    servers = [
        start(["serve", "--dev", "--port", str(http_port)], env, data_dir / "serve.log"),
        start(
            ["grpc", "--executive-port", str(executive_port), "--memory-port", str(memory_port)],
            env,
            data_dir / "grpc.log",
        ),
    ]
    try:
        async with (
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{http_port}", timeout=30) as http,
            grpc.aio.insecure_channel(f"127.0.0.1:{executive_port}") as executive_channel,
            grpc.aio.insecure_channel(f"127.0.0.1:{memory_port}") as memory_channel,
        ):
            executive = executive_pb2_grpc.ExecutiveServiceStub(executive_channel)
            memory = memory_pb2_grpc.MemoryStorageStub(memory_channel)

            async def http_up() -> None:
                (await http.get("/readyz")).raise_for_status()

            async def grpc_up() -> None:
                await executive.ProcessEvent(
                    executive_pb2.ProcessEventRequest(event=common_pb2.Event(raw_text="warm up"))
                )
                await memory.GetHealth(types_pb2.GetHealthRequest())

            await wait_for(http_up)
            await wait_for(grpc_up)
            await http.post("/v1/events/decide", json={"text": "warm up too"})
            return await rounds(http, executive, memory, events)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)


def ok(response: httpx.Response) -> httpx.Response:
    return response.raise_for_status()


class Skip(Exception):
    """This round has nothing for the call to do (a rating of a decision that answered nothing)."""


class Calls:
    """Each RPC beside its HTTP twin (None: HTTP has none), a new text each round."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        executive: executive_pb2_grpc.ExecutiveServiceStub,
        memory: memory_pb2_grpc.MemoryStorageStub,
    ) -> None:
        self.http = http
        self.executive = executive
        self.memory = memory
        self.fires: list[str] = []
        self.decided: dict[str, str] = {}

    @staticmethod
    def text(i: int, via: str, what: str = "decide") -> str:
        """A text no call before it embedded (each call pays for its embedding, as a new event does)."""
        return f"{TOPICS[i % len(TOPICS)]} number {i} needs attention right now, round {i} ({via} {what})"

    @staticmethod
    async def stored(i: int, via: str) -> str:
        return f"h-{via}-{i}"

    def heuristic(self, i: int, via: str) -> memory_pb2.Heuristic:
        return memory_pb2.Heuristic(
            id=f"h-{via}-{i}",
            condition_text=f"sensor {i} of the {via} wing reports a new reading",  # apart from the events
            effects_json=json.dumps({"type": "suggest", "message": f"handle {i}"}),
            confidence=0.5,
            origin="test",
            source="home",
        )

    async def http_decide(self, i: int) -> object:
        body = ok(
            await self.http.post("/v1/events/decide", json={"text": self.text(i, "http"), "source": "home"})
        ).json()
        if body["decision_path"] != "rejected":  # a rejected decision has nothing to rate
            self.decided[f"http-{i}"] = body["response_id"]
        return body

    async def grpc_decide(self, i: int) -> object:
        event = common_pb2.Event(id=f"g-{i}", raw_text=self.text(i, "grpc"), source="home")
        answer = await self.executive.ProcessEvent(executive_pb2.ProcessEventRequest(event=event, immediate=True))
        if answer.accepted:
            self.decided[f"grpc-{i}"] = answer.response_id
        return answer

    async def http_store(self, i: int) -> object:
        h = self.heuristic(i, "http")
        body = {
            "id": h.id,
            "condition_text": h.condition_text,
            "action_text": f"handle {i}",
            "confidence": 0.5,
            "domain": "home",
        }
        return ok(await self.http.post("/v1/heuristics", json=body))

    async def grpc_store(self, i: int) -> object:
        return await self.memory.StoreHeuristic(memory_pb2.StoreHeuristicRequest(heuristic=self.heuristic(i, "grpc")))

    async def http_match(self, i: int) -> object:
        return ok(
            await self.http.post(
                "/v1/heuristics/match",
                json={"text": self.text(i, "http", "match"), "source": "home", "include_general": True},
            )
        )

    async def grpc_match(self, i: int) -> object:
        request = memory_pb2.QueryMatchingHeuristicsRequest(
            event_text=self.text(i, "grpc", "match"), source_filter="home"
        )
        return await self.memory.QueryMatchingHeuristics(request)

    async def http_query(self, i: int) -> object:
        return ok(await self.http.post("/v1/heuristics/match", json={"text": self.text(i, "http", "query")}))

    async def grpc_query(self, i: int) -> object:
        return await self.memory.QueryHeuristics(
            memory_pb2.QueryHeuristicsRequest(query_text=self.text(i, "grpc", "query"))
        )

    async def http_get(self, i: int) -> object:
        return ok(await self.http.get(f"/v1/heuristics/{await self.stored(i, 'http')}"))

    async def grpc_get(self, i: int) -> object:
        return await self.memory.GetHeuristic(memory_pb2.GetHeuristicRequest(id=await self.stored(i, "grpc")))

    async def http_confidence(self, i: int) -> object:
        return ok(
            await self.http.post(f"/v1/heuristics/{await self.stored(i, 'http')}/confidence", json={"positive": True})
        )

    async def grpc_confidence(self, i: int) -> object:
        request = memory_pb2.UpdateHeuristicConfidenceRequest(heuristic_id=await self.stored(i, "grpc"), positive=True)
        return await self.memory.UpdateHeuristicConfidence(request)

    async def http_fire(self, i: int) -> object:
        return ok(
            await self.http.post(f"/v1/heuristics/{await self.stored(i, 'http')}/fires", json={"event_id": f"fire-{i}"})
        )

    async def grpc_fire(self, i: int) -> object:
        request = memory_pb2.RecordHeuristicFireRequest(heuristic_id=await self.stored(i, "grpc"), event_id=f"fire-{i}")
        fired = await self.memory.RecordHeuristicFire(request)
        self.fires.append(fired.fire_id)
        return fired

    async def grpc_outcome(self, i: int) -> object:
        return await self.memory.UpdateFireOutcome(
            memory_pb2.UpdateFireOutcomeRequest(fire_id=self.fires[i], outcome="success")
        )

    async def grpc_pending(self, i: int) -> object:
        return await self.memory.GetPendingFires(memory_pb2.GetPendingFiresRequest(max_age_seconds=60))

    async def grpc_list(self, i: int) -> object:
        return await self.memory.ListFires(memory_pb2.ListFiresRequest(limit=20))

    async def grpc_embed(self, i: int) -> object:
        return await self.memory.GenerateEmbedding(
            memory_pb2.GenerateEmbeddingRequest(text=self.text(i, "grpc", "embed"))
        )

    async def http_feedback(self, i: int) -> object:
        if f"http-{i}" not in self.decided:
            raise Skip
        body = {"response_id": self.decided[f"http-{i}"], "rating": "positive"}
        return ok(await self.http.post("/v1/feedback", json=body))

    async def grpc_feedback(self, i: int) -> object:
        if f"grpc-{i}" not in self.decided:
            raise Skip
        request = executive_pb2.ProvideFeedbackRequest(response_id=self.decided[f"grpc-{i}"], positive=True)
        return await self.executive.ProvideFeedback(request)

    def pairs(self) -> list[tuple[str, str, Call | None, Call]]:
        return [
            ("ProcessEvent", "POST /v1/events/decide", self.http_decide, self.grpc_decide),
            ("ProvideFeedback", "POST /v1/feedback", self.http_feedback, self.grpc_feedback),
            ("StoreHeuristic", "POST /v1/heuristics", self.http_store, self.grpc_store),
            ("GetHeuristic", "GET /v1/heuristics/{id}", self.http_get, self.grpc_get),
            (
                "QueryMatchingHeuristics",
                "POST /v1/heuristics/match (source, general)",
                self.http_match,
                self.grpc_match,
            ),
            ("QueryHeuristics", "POST /v1/heuristics/match", self.http_query, self.grpc_query),
            (
                "UpdateHeuristicConfidence",
                "POST /v1/heuristics/{id}/confidence",
                self.http_confidence,
                self.grpc_confidence,
            ),
            ("RecordHeuristicFire", "POST /v1/heuristics/{id}/fires", self.http_fire, self.grpc_fire),
            ("UpdateFireOutcome", "", None, self.grpc_outcome),
            ("GetPendingFires", "", None, self.grpc_pending),
            ("ListFires", "", None, self.grpc_list),
            ("GenerateEmbedding", "", None, self.grpc_embed),
        ]


async def rounds(
    http: httpx.AsyncClient,
    executive: executive_pb2_grpc.ExecutiveServiceStub,
    memory: memory_pb2_grpc.MemoryStorageStub,
    events: int,
) -> dict[str, list[float]]:
    """Each pair interleaved, one call at a time."""
    pairs = Calls(http, executive, memory).pairs()
    samples: dict[str, list[float]] = {}
    for i in range(events):
        for rpc, endpoint, over_http, over_grpc in pairs:
            for key, call in ((f"http {endpoint}", over_http), (f"grpc {rpc}", over_grpc)):
                if call is None:
                    continue
                started = time.perf_counter()
                try:
                    await call(i)
                except Skip:
                    continue
                samples.setdefault(key, []).append(time.perf_counter() - started)
    ROWS.extend((rpc, endpoint) for rpc, endpoint, _, _ in pairs)
    return samples


ROWS: list[tuple[str, str]] = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heuristics", type=int, default=1000)
    parser.add_argument("--events", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        asyncio.run(populate(data_dir, args.heuristics))
        samples = asyncio.run(measure(data_dir, args.events))
    print(
        f"{args.heuristics} heuristics, {args.events} calls of each, one at a time, interleaved, "
        "the real model, no LLM\n"
    )
    print("| gRPC call | n | p50 ms | p99 ms | HTTP endpoint, the same work | n | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    for rpc, endpoint in ROWS:
        over_grpc = samples[f"grpc {rpc}"]
        over_http = samples.get(f"http {endpoint}")
        twin = (
            f"{endpoint} | {len(over_http)} | {percentile(over_http, 50) * 1000:.1f} | "
            f"{percentile(over_http, 99) * 1000:.1f}"
            if over_http
            else "none (gRPC only) | | | "
        )
        print(
            f"| {rpc} | {len(over_grpc)} | {percentile(over_grpc, 50) * 1000:.1f} | "
            f"{percentile(over_grpc, 99) * 1000:.1f} | {twin} |"
        )


if __name__ == "__main__":
    main()
