"""Templated tasks that differ only in their values (issue 23, item 1): how are they admitted?

300 invoice runs, "Process invoice {n} for customer {m}" with random values, the same steps, as
one batch (``POST /v1/runs/batch``) and one at a time, with the real local model and no LLM
(the rule judge). Each invoice is its own task, so every run should be an ADD; the last rows
re-send 30 of them with other steps, which should be NOTs (the same task, nothing new).

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


def counted(results: list[AdmissionResult]) -> str:
    kinds = Counter(r.decision for r in results)
    return " / ".join(f"{kinds.get(k, 0)}" for k in ("ADD", "NOT", "REPLACE", "MERGE"))


async def main(n: int, seed: int) -> None:
    runs = invoices(n, seed)
    resent = [r.model_copy(update={"steps": ["Read it again", "Posted it"]}) for r in runs[:30]]
    print(f"{n} invoice runs, then 30 of them re-sent with other steps; decisions ADD / NOT / REPLACE / MERGE\n")
    print("| how | the 300 | the 30 re-sent | rules of the 300 |")
    print("|---|---|---|---|")
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
        rules = Counter(r.rule for r in first).most_common(3)
        print(f"| {how} | {counted(first)} | {counted(again)} | {', '.join(f'{k} {v}' for k, v in rules)} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=23)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.seed))
