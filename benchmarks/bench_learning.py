"""Learning benchmark (seed 001): a learning simulator, and signal throughput under concurrency.

1. **Simulator.** A population of heuristics with hidden true success rates; a fifth of
   them *drift* (their rate drops to 0.15 halfway through). Each round, every heuristic
   fires once for its own source, one simulated hour apart. What follows a fire depends
   on whether it really helped:

   - it helped: usually nothing (the sweeper turns silence into a timeout positive),
     sometimes the user moves on (an ignore);
   - it did not: often an undo ("undo that"), sometimes an ignore, sometimes nothing
     (an unnoticed failure looks like success);
   - rarely, an explicit rating: in the *biased* population biased negative (users complain
     more than they praise); in the *unbiased* one, a rating says whether the fire helped.

   Every signal goes through the real ``LearningModule`` and SQLite store. Per strategy,
   after 10 / 50 / 200 fires per heuristic, it prints Kendall tau between learned
   confidence and the true rate, the expected calibration error (10 bins), and for the
   drifted heuristics how many fires after the drift they needed to fall below the
   firing threshold (0.7). The *oracle* columns are a learner that saw whether every fire
   truly helped (a Beta(1, 1) mean of the outcomes): no learner can rank better from as
   many fires, so they bound what the signals allow. Strategies: ``bayesian`` (seed 001),
   ``discounted_beta`` (evidence fades) and ``calibrated`` (implicit outcomes weighed through
   a channel learned from rated fires, ``heuristics.channel``).

2. **Throughput.** Signals applied per second by 16 concurrent writers, on SQLite and on
   PostgreSQL (``--postgres URL``), one signal per transaction and in batches; afterwards
   the evidence is summed and compared with what was sent (no lost update).

    python benchmarks/bench_learning.py [--heuristics 100] [--rounds 200] [--postgres URL]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psutil

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.heuristics.evidence_writer import EvidenceItem
from phronesis.heuristics.models import HeuristicCreate
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.testing import FixedClock

TENANT = "bench"
THRESHOLD = 0.7
CHECKPOINTS = (10, 50, 200)


@dataclass
class Simulated:
    heuristic_id: str
    source: str
    rate: float
    drifts: bool

    def true_rate(self, round_: int, drift_at: int) -> float:
        return 0.15 if self.drifts and round_ >= drift_at else self.rate


# ---------------------------------------------------------------- metrics


def kendall_tau(a: list[float], b: list[float]) -> float:
    """Tau-b over all pairs (n is small)."""
    concordant = discordant = ties_a = ties_b = 0
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            da, db = a[i] - a[j], b[i] - b[j]
            if da == 0 and db == 0:
                continue
            if da == 0:
                ties_a += 1
            elif db == 0:
                ties_b += 1
            elif (da > 0) == (db > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = ((concordant + discordant + ties_a) * (concordant + discordant + ties_b)) ** 0.5
    return (concordant - discordant) / denominator if denominator else 0.0


def expected_calibration_error(confidence: list[float], truth: list[float], bins: int = 10) -> float:
    c, t = np.asarray(confidence), np.asarray(truth)
    which = np.minimum((c * bins).astype(int), bins - 1)
    error = 0.0
    for b in range(bins):
        mask = which == b
        if mask.any():
            error += mask.mean() * abs(c[mask].mean() - t[mask].mean())
    return float(error)


# ---------------------------------------------------------------- simulator


def _learning(strategy: str, half_life_h: float | None) -> dict[str, object]:
    learning: dict[str, object] = {"strategy": strategy}
    if half_life_h is not None:
        learning["half_life_sec"] = half_life_h * 3600
    return learning


async def simulate(
    strategy: str, heuristics: int, rounds: int, seed: int, *, raters: str = "biased", half_life_h: float | None = None
) -> list[str]:
    rng = random.Random(seed)
    clock = FixedClock()
    with tempfile.TemporaryDirectory() as tmp:
        learning = _learning(strategy, half_life_h)
        settings = Settings(data_dir=Path(tmp), embeddings={"spec": "hashing:64"}, learning=learning)
        engine = Engine(settings, embedder=HashingEmbedder(64), llm=None, clock=clock)
        await engine.start()
        population: list[Simulated] = []
        for i in range(heuristics):
            created = await engine.heuristics.add(
                TENANT, HeuristicCreate(condition_text=f"situation {i}", action_text=f"action {i}", confidence=0.5)
            )
            population.append(Simulated(created.id, f"source-{i}", rng.uniform(0.05, 0.95), rng.random() < 0.2))
        drift_at = rounds // 2
        fell_after: dict[str, int] = {}
        # the oracle: what a learner that saw every fire's true outcome would say (Beta(1, 1) mean),
        # the ceiling of any learner on this population
        helped_count = {sim.heuristic_id: 0 for sim in population}
        rows: list[str] = []
        started = time.perf_counter()
        signals = 0
        for round_ in range(1, rounds + 1):
            for sim in population:
                rate = sim.true_rate(round_, drift_at)
                fire = await engine.record_fire(
                    sim.heuristic_id, tenant=TENANT, event_id=f"{sim.source}-{round_}", source=sim.source
                )
                helped = rng.random() < rate
                helped_count[sim.heuristic_id] += helped
                roll = rng.random()
                clock.advance(seconds=0.01)
                if helped:
                    follow_up = "something else happened" if roll < 0.1 else None  # moved on: an ignore
                else:
                    follow_up = "undo that" if roll < 0.5 else "something else happened" if roll < 0.8 else None
                if follow_up is not None:
                    # a follow-up about this fire (issue 46: an unrelated event answers nothing): the
                    # simulated user moves on from, or undoes, what was just done
                    await engine.observe(
                        follow_up,
                        tenant=TENANT,
                        event_id=f"{sim.source}-{round_}-next",
                        source=sim.source,
                        reply_to=f"{sim.source}-{round_}",
                    )
                    signals += 1
                if rng.random() < 0.1:  # sparse explicit feedback
                    # biased: complaints outnumber praise; unbiased: the rating says whether it helped
                    positive = helped if raters == "unbiased" else rng.random() < (0.6 if helped else 0.05)
                    await engine.feedback(fire.id, tenant=TENANT, rating="positive" if positive else "negative")
                    signals += 1
            clock.advance(seconds=settings.learning.undo_window_sec + 1)
            signals += await engine.learning.sweep(limit=heuristics * 2)
            clock.advance(hours=1)
            if round_ > drift_at:
                for sim in population:
                    if sim.drifts and sim.heuristic_id not in fell_after:
                        current = await engine.heuristics.repository.get(TENANT, sim.heuristic_id)
                        if current.confidence < THRESHOLD:
                            fell_after[sim.heuristic_id] = round_ - drift_at
            if round_ in CHECKPOINTS:
                confidences = [
                    (await engine.heuristics.repository.get(TENANT, sim.heuristic_id)).confidence for sim in population
                ]
                truth = [sim.true_rate(round_, drift_at) for sim in population]
                oracle = [(helped_count[sim.heuristic_id] + 1) / (round_ + 2) for sim in population]
                rows.append(
                    f"| {raters} | {strategy} | {round_} | {kendall_tau(confidences, truth):.3f} "
                    f"| {expected_calibration_error(confidences, truth):.3f} "
                    f"| {kendall_tau(oracle, truth):.3f} | {expected_calibration_error(oracle, truth):.3f} |"
                )
        elapsed = time.perf_counter() - started
        drifted = [sim for sim in population if sim.drifts and sim.rate >= THRESHOLD + 0.05]
        falls = [fell_after[sim.heuristic_id] for sim in drifted if sim.heuristic_id in fell_after]
        never = len(drifted) - len(falls)
        drift_row = (
            f"| {raters} | {strategy} | {len(drifted)} | {np.median(falls) if falls else float('nan'):.0f} "
            f"| {max(falls) if falls else float('nan'):.0f} | {never} |"
        )
        rows.append(f"<!-- {signals} signals in {elapsed:.1f} s -->")
        await engine.close()
        return [*rows, drift_row]


# ---------------------------------------------------------------- throughput


async def throughput(url: str, label: str, writers: int, per_writer: int, batch: int) -> str:
    database = Database(url)
    settings = Settings(embeddings={"spec": "hashing:64"}, database={"url": url})
    engine = Engine(settings, database=database, embedder=HashingEmbedder(64), llm=None)
    await engine.start()
    tenant = f"tp-{os.getpid()}-{batch}-{time.monotonic_ns()}"
    ids = [
        (await engine.heuristics.add(tenant, HeuristicCreate(condition_text=f"c{i}", action_text="a"))).id
        for i in range(64)
    ]
    repo = engine.heuristics.repository
    before = {hid: await repo.get(tenant, hid) for hid in ids}
    latencies: list[float] = []

    async def writer(w: int) -> None:
        rng = random.Random(w)
        for start in range(0, per_writer, batch):
            items = [
                EvidenceItem(rng.choice(ids), i % 3 != 0, 1.0, "implicit_timeout", key=f"{tenant}:{w}:{i}")
                for i in range(start, min(start + batch, per_writer))
            ]
            began = time.perf_counter()
            await repo.apply_evidence(tenant, items)
            latencies.append((time.perf_counter() - began) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(writer(w) for w in range(writers)))
    elapsed = time.perf_counter() - started
    total = writers * per_writer
    expected_pos = writers * sum(1 for i in range(per_writer) if i % 3 != 0)
    after = {hid: await repo.get(tenant, hid) for hid in ids}
    added_pos = sum(after[h].alpha - before[h].alpha for h in ids)
    added_neg = sum(after[h].beta - before[h].beta for h in ids)
    exact = abs(added_pos - expected_pos) < 1e-6 and abs(added_neg - (total - expected_pos)) < 1e-6
    rss = psutil.Process(os.getpid()).memory_info().rss / 2**20
    await engine.close()
    return (
        f"| {label} | {writers} | {batch} | {total} | {total / elapsed:,.0f} "
        f"| {np.percentile(latencies, 50):.2f} | {np.percentile(latencies, 99):.2f} | {rss:.0f} "
        f"| {'yes' if exact else 'NO'} |"
    )


async def main_async(args: argparse.Namespace) -> None:
    print(f"machine: {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB\n")
    print(
        f"Learning simulator: {args.heuristics} heuristics, {args.rounds} fires each (one an hour), "
        f"20% drift to a true rate of 0.15 at fire {args.rounds // 2}\n"
    )
    print(
        "| explicit raters | strategy | fires per heuristic | Kendall tau (confidence vs true rate) | ECE "
        "| oracle tau | oracle ECE |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    drift_rows: list[str] = []
    for raters in args.raters.split(","):
        for strategy in args.strategies.split(","):
            rows = await simulate(
                strategy, args.heuristics, args.rounds, args.seed, raters=raters, half_life_h=args.half_life_hours
            )
            drift_rows.append(rows.pop())
            for row in rows:
                print(row)
    print("\nDrifted heuristics (true rate was >= 0.75, became 0.15): fires after the drift until confidence < 0.7\n")
    print("| explicit raters | strategy | drifted heuristics | median fires | worst | never fell |")
    print("|---|---|---:|---:|---:|---:|")
    for row in drift_rows:
        print(row)

    if args.skip_throughput:
        return
    print(f"\nSignals applied per second, {args.writers} concurrent writers, 64 heuristics\n")
    print("| database | writers | signals per call | signals | signals/s | p50 ms | p99 ms | RSS MB | exact counts |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        targets = [("SQLite", f"sqlite+aiosqlite:///{Path(tmp) / 'tp.db'}")]
        if args.postgres:
            targets.append(("PostgreSQL", args.postgres))
        for label, url in targets:
            for batch in (1, 50):
                per_writer = args.signals // args.writers
                print(await throughput(url, label, args.writers, per_writer, batch))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--heuristics", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--signals", type=int, default=16_000, help="signals per throughput run")
    parser.add_argument("--postgres", help="PostgreSQL URL for the throughput run (postgresql+asyncpg://…)")
    parser.add_argument("--raters", default="unbiased,biased", help="explicit-rater populations to simulate")
    parser.add_argument("--strategies", default="bayesian,discounted_beta,calibrated")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--half-life-hours", type=float, help="the fading strategies' half-life (default: setting)")
    args = parser.parse_args()
    if args.rounds < max(CHECKPOINTS):
        sys.exit(f"--rounds must be at least {max(CHECKPOINTS)}")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
