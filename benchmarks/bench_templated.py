"""Templated tasks that differ only in their values (issue 23, item 1): how are they admitted?

300 invoice runs, "Process invoice {n} for customer {m}" with random values, the same steps, as
one batch (``POST /v1/runs/batch``) and one at a time, with the real local model and no LLM
(the rule judge). Each invoice is its own task, so every run should be an ADD. Then 30 of them
are sent again with a shorter trace: the same task, another trace, so MERGE into its group
(rule 3, complementary), or ADD where the two traces are below the low similarity (seed 003's
pre-filter decides before any judge); never a MERGE with or NOT of another invoice.

    cd benchmarks && python bench_templated.py
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from collections import Counter
from pathlib import Path

from phronesis.admission.models import AdmissionResult, RunIn
from phronesis.embeddings.local import LocalSentenceEmbedder
from phronesis.engine import Engine
from phronesis.settings import Settings


def invoices(n: int, seed: int) -> list[RunIn]:
    rng = random.Random(seed)
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < n:
        pairs.add((rng.randint(1, 999), rng.randint(1, 99)))
    return [
        RunIn(
            task=f"Process invoice {invoice} for customer {customer}",
            outcome="success",
            agent_id="billing",
            steps=["Read the invoice", "Matched it to the purchase order", "Posted it to the ledger"],
        )
        for invoice, customer in sorted(pairs, key=lambda _: rng.random())
    ]


def rules(results: list[AdmissionResult]) -> str:
    return ", ".join(f"{k} {v}" for k, v in Counter(r.rule for r in results).most_common(3))


def counted(results: list[AdmissionResult]) -> str:
    kinds = Counter(r.decision for r in results)
    return " / ".join(f"{kinds.get(k, 0)}" for k in ("ADD", "NOT", "REPLACE", "MERGE"))


async def main(n: int, seed: int) -> None:
    runs = invoices(n, seed)
    resent = [r.model_copy(update={"steps": ["Read it again", "Posted it"]}) for r in runs[:30]]
    print(f"{n} invoice runs, then 30 of them re-sent with other steps; decisions ADD / NOT / REPLACE / MERGE\n")
    print("| how | the 300 | the 30 re-sent | rules of the 300 | rules of the 30 | merged into its own invoice |")
    print("|---|---|---|---|---|---|")
    for how in ("one batch", "one at a time"):
        with tempfile.TemporaryDirectory() as tmp:
            engine = Engine(Settings(data_dir=Path(tmp)), embedder=LocalSentenceEmbedder(), llm=None)
            await engine.start()
            try:
                if how == "one batch":
                    first = list(await engine.admission.admit_many("bench", runs))
                else:
                    first = [await engine.admission.admit("bench", run) for run in runs]
                again = [await engine.admission.admit("bench", run) for run in resent]
            finally:
                await engine.close()
        own = {r.run_id for r in first[:30]}
        merged = [r for r in again if r.decision == "MERGE"]
        right = sum(
            r.target_run_id in own and r.target_run_id == first[i].run_id for i, r in enumerate(again) if r in merged
        )
        print(
            f"| {how} | {counted(first)} | {counted(again)} | {rules(first)} | {rules(again)} "
            f"| {right} of {len(merged)} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=23)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.seed))
