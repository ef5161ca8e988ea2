"""Routing benchmark (seed 002): the local router on CLINC150, the cascade, and routing speed.

Prints four tables:

1. CLINC150 validation (3,000 in-scope + 100 out-of-scope lines, never seen in fitting):
   the local router fitted on the 15,000 train lines with the 100 out-of-scope train lines
   (10 % of train held out to calibrate temperature and threshold), in the CLINC protocol;
   and the cascade, where every line the local router is not sure of (it abstains, or its
   probability is below ``routing.cascade_threshold``) goes to an LLM. The LLM is
   *simulated* (no paid API here): it names the right intent, or says out-of-scope, with
   a fixed accuracy (``--llm-accuracy``, default 0.9), else the local router's best wrong
   guess. The table says how many LLM calls the cascade avoided.
2. Local router latency in process, with the real all-MiniLM-L6-v2: one query at a time
   (embedding included), batches of 64, and the classifier alone (embedding excluded).
3. ``Engine.route`` in process on SQLite (session read, local router, composite, record
   and session update in one transaction).
4. ``POST /v1/sessions/{id}/route`` over loopback HTTP against a real server process.

    python benchmarks/bench_routing.py [--requests 300] [--llm-accuracy 0.9]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
import psutil

from bench_executive import free_port
from bench_heuristics import DATA, percentile, rss_mb
from phronesis.embeddings.cache import CachedEmbedder
from phronesis.embeddings.local import LocalSentenceEmbedder
from phronesis.routing.evaluation import evaluate_predictions
from phronesis.routing.exemplars import Exemplar
from phronesis.routing.local_router import LocalPrediction, LocalRouter
from phronesis.settings import Settings

API_KEY = "bench-key"
TENANT = "bench"


def load(data_dir: Path) -> dict[str, list[Exemplar]]:
    data = json.loads((data_dir / "clinc150" / "clinc150_train_val.json").read_text())
    return {split: [Exemplar(text=t, label=label) for t, label in rows] for split, rows in data.items()}


def cascade(
    predictions: list[LocalPrediction], gold: list[str], threshold: float, accuracy: float, seed: int = 7
) -> tuple[list[str], int]:
    rng = random.Random(seed)
    out: list[str] = []
    calls = 0
    for p, truth in zip(predictions, gold, strict=True):
        local = "oos" if p.abstained == "out_of_scope" else p.label
        if p.abstained is None and p.probability >= threshold:
            out.append(local)
            continue
        calls += 1
        if rng.random() < accuracy:
            out.append(truth)
        else:
            wrong = [c for c, _ in p.candidates if c != truth] + (["oos"] if truth != "oos" else [])
            out.append(wrong[0])
    return out, calls


def figures(gold: list[str], said: list[str]) -> tuple[float, float, float]:
    ins = [i for i, g in enumerate(gold) if g != "oos"]
    oos = [i for i, g in enumerate(gold) if g == "oos"]
    flagged = [i for i, s in enumerate(said) if s == "oos"]
    accuracy = sum(said[i] == gold[i] for i in ins) / len(ins)
    recall = sum(said[i] == "oos" for i in oos) / len(oos)
    precision = sum(gold[i] == "oos" for i in flagged) / max(1, len(flagged))
    return accuracy, recall, precision


async def quality(args: argparse.Namespace, splits: dict[str, list[Exemplar]], embedder: CachedEmbedder) -> LocalRouter:
    started = time.perf_counter()
    router = await LocalRouter.fit(splits["train"], embedder, oos=splits["oos_train"])
    fit_s = time.perf_counter() - started
    test = splits["val"] + splits["oos_val"]
    predictions = await router.predict([e.text for e in test], embedder, ambiguity_margin=0.1)
    metrics = evaluate_predictions(router, test, predictions)
    gold = [e.label for e in test]
    local_said = ["oos" if p.abstained == "out_of_scope" else p.label for p in predictions]
    cascade_said, calls = cascade(predictions, gold, 0.75, args.llm_accuracy)
    print(
        f"local router fit: {fit_s:.0f} s on 13,500 lines (+1,500 held out, 100 out-of-scope); "
        f"temperature {router.scoring.temperature:.3f}, threshold {router.scoring.threshold:.3f}; "
        f"ECE on validation {metrics['expected_calibration_error']}\n"
    )
    print("| router | in-scope accuracy | OOS recall | OOS precision | LLM calls | LLM calls avoided |")
    print("|---|---:|---:|---:|---:|---:|")
    a, r, p = figures(gold, local_said)
    print(f"| local (no LLM) | {a:.2%} | {r:.2%} | {p:.2%} | 0 | 100% |")
    a, r, p = figures(gold, cascade_said)
    print(
        f"| cascade, simulated LLM {args.llm_accuracy:.0%} accurate | {a:.2%} | {r:.2%} | {p:.2%} | "
        f"{calls} | {1 - calls / len(test):.1%} |"
    )
    print(
        f"| llm only, simulated {args.llm_accuracy:.0%} accurate (expected) | {args.llm_accuracy:.2%} | "
        f"{args.llm_accuracy:.2%} | - | {len(test)} | 0% |"
    )
    print("\nreference (CLINC150 test, published): BERT + threshold 96.2 / 52.3; nearest-centroid MiniLM 87 / 85\n")
    return router


async def latency(router: LocalRouter, model: LocalSentenceEmbedder, texts: list[str]) -> None:
    single: list[float] = []
    bare: list[float] = []
    for text in texts[:500]:  # interleaved, so both see the same machine
        started = time.perf_counter()
        model.embed_sync([text])
        bare.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        vectors = model.embed_sync([text])
        router.predict_vectors(vectors, [text], ambiguity_margin=0.1)
        single.append((time.perf_counter() - started) * 1000)
    batch_texts = texts[:2048]
    started = time.perf_counter()
    for i in range(0, len(batch_texts), 64):
        chunk = batch_texts[i : i + 64]
        router.predict_vectors(model.embed_sync(chunk), chunk, ambiguity_margin=0.1)
    batch_rate = len(batch_texts) / (time.perf_counter() - started)
    vectors = model.embed_sync(texts[:500])
    alone: list[float] = []
    for i, text in enumerate(texts[:500]):
        started = time.perf_counter()
        router.predict_vectors(vectors[i : i + 1], [text], ambiguity_margin=0.1)
        alone.append((time.perf_counter() - started) * 1000)
    print("| local router, in process | calls | per second | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|---:|")
    print(
        f"| one query (embedding included) | {len(single)} | {1000 / np.mean(single):.0f} | "
        f"{percentile(single, 50):.2f} | {percentile(single, 99):.2f} |"
    )
    print(
        f"| the bare embedding, same queries | {len(bare)} | {1000 / np.mean(bare):.0f} | "
        f"{percentile(bare, 50):.2f} | {percentile(bare, 99):.2f} |"
    )
    print(f"| batches of 64 (embedding included) | {len(batch_texts)} | {batch_rate:.0f} | - | - |")
    print(
        f"| classifier + kNN alone (embedding excluded) | {len(alone)} | {1000 / np.mean(alone):.0f} | "
        f"{percentile(alone, 50):.3f} | {percentile(alone, 99):.3f} |"
    )
    ratio = percentile(single, 50) / percentile(bare, 50)
    print(f"\none routed query / the bare embedding at p50: {ratio:.2f}")
    print(f"process RSS with the model and the 150-intent router loaded: {rss_mb():.0f} MB\n")


def settings_for(db_path: Path) -> Settings:
    return Settings(
        database={"url": f"sqlite+aiosqlite:///{db_path}"}, api={"keys": {API_KEY: TENANT}}, llm={"spec": "none"}
    )


async def in_process(db_path: Path, router: LocalRouter, texts: list[str]) -> None:
    from phronesis.engine import Engine
    from phronesis.routing.sessions import NewSession

    engine = Engine(settings_for(db_path))
    await engine.start()
    await engine.routing.store.save(TENANT, "default", router)
    await engine.routing.create_session(TENANT, NewSession(id="s0"))
    for text in texts[:20]:  # warm-up: model load, router load
        await engine.route("s0", text, tenant=TENANT)
    latencies: list[float] = []
    decisions: dict[str, int] = {}
    for i, text in enumerate(texts[:500]):
        # a fresh session per query: an escalated session is human-owned and would not be routed
        sid = (await engine.routing.create_session(TENANT, NewSession(id=f"q{i}"))).id
        started = time.perf_counter()
        result = await engine.route(sid, text, tenant=TENANT)
        latencies.append((time.perf_counter() - started) * 1000)
        decisions[str(result.decision)] = decisions.get(str(result.decision), 0) + 1
    await engine.close()
    print("| Engine.route, in process, SQLite | calls | per second | p50 ms | p99 ms | decisions |")
    print("|---|---:|---:|---:|---:|---|")
    print(
        f"| local router, 150 intents | {len(latencies)} | {1000 / np.mean(latencies):.0f} | "
        f"{percentile(latencies, 50):.1f} | {percentile(latencies, 99):.1f} | {decisions} |\n"
    )


def serve(db_path: Path, port: int) -> None:
    import uvicorn

    from phronesis.engine import Engine
    from phronesis.server import create_app

    uvicorn.run(
        create_app(Engine(settings_for(db_path))), host="127.0.0.1", port=port, log_level="warning", access_log=False
    )


async def http(db_path: Path, texts: list[str], requests: int, levels: list[int]) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(db_path), "--port", str(port)],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError("server exited during start-up")
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.25)
        headers = {"Authorization": f"Bearer {API_KEY}"}
        print("| POST /v1/sessions/{id}/route, loopback HTTP | concurrency | requests | routes/s | p50 ms | p99 ms |")
        print("|---|---:|---:|---:|---:|---:|")
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
            await client.post("/v1/sessions/s0/route", json={"query": "warm up"})
            offset = 0
            for level in levels:
                queue = list(range(requests))
                latencies: list[float] = []

                async def worker(
                    w: int, start: int, level: int = level, queue: list[int] = queue, latencies: list[float] = latencies
                ) -> None:
                    while queue:
                        n = queue.pop()
                        # a fresh session per query: an escalated session is human-owned, not routed
                        sid = f"h{level}-{w}-{n}"
                        (await client.post("/v1/sessions", json={"id": sid})).raise_for_status()
                        t0 = time.perf_counter()
                        response = await client.post(
                            f"/v1/sessions/{sid}/route", json={"query": texts[(start + n) % len(texts)]}
                        )
                        latencies.append((time.perf_counter() - t0) * 1000)
                        response.raise_for_status()

                started = time.perf_counter()
                await asyncio.gather(*(worker(w, offset) for w in range(level)))
                elapsed = time.perf_counter() - started
                offset += requests
                print(
                    f"| local router | {level} | {requests} | {requests / elapsed:.1f} | "
                    f"{percentile(latencies, 50):.1f} | {percentile(latencies, 99):.1f} |"
                )
        print(f"\nserver RSS after the runs: {psutil.Process(process.pid).memory_info().rss / 2**20:.0f} MB")
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--concurrency", default="1,8")
    parser.add_argument("--llm-accuracy", type=float, default=0.9)
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.port)
        return
    print(f"machine: {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB\n")
    splits = load(args.data_dir)
    model = LocalSentenceEmbedder()
    texts = [e.text for split in ("train", "val", "oos_train", "oos_val") for e in splits[split]]
    started = time.perf_counter()
    # every CLINC line embedded once; fitting and evaluation then hit the cache
    embedder = CachedEmbedder(model, max_entries=len(texts))
    asyncio.run(embedder.embed(texts))
    print(f"embedded {len(texts):,} CLINC150 lines in {time.perf_counter() - started:.0f} s ({model.precision})\n")
    router = asyncio.run(quality(args, splits, embedder))
    held_out = [e.text + " please" for e in splits["val"]]  # reworded: never in any cache
    asyncio.run(latency(router, model, held_out))
    with tempfile.TemporaryDirectory(prefix="phronesis-bench-") as scratch:
        db_path = Path(scratch) / "bench.db"
        asyncio.run(in_process(db_path, router, held_out[500:]))
        asyncio.run(http(db_path, held_out[1000:], args.requests, [int(c) for c in args.concurrency.split(",")]))


if __name__ == "__main__":
    main()
