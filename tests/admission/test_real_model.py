"""Seed 003's four scenarios with the real local sentence model (all-MiniLM-L6-v2), as shipped."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from phronesis.admission.models import RunIn
from phronesis.embeddings.local import LocalSentenceEmbedder
from phronesis.engine import Engine
from phronesis.settings import Settings
from phronesis.testing import FixedClock


@pytest.mark.model
async def test_the_seed_scenarios_with_the_real_model(tmp_path: Path) -> None:
    engine = Engine(Settings(data_dir=tmp_path), embedder=LocalSentenceEmbedder(), llm=None, clock=FixedClock())
    await engine.start()
    try:

        async def admit(scope: str, outcome: str = "success", **fields: object):  # type: ignore[no-untyped-def]
            return await engine.admit_run("Generate schema", outcome=outcome, agent_id=scope, **fields)

        first = await admit("s1")
        unique = await engine.admit_run("Translate the onboarding guide into French", outcome="success", agent_id="s1")
        assert (first.decision, unique.decision, unique.rule) == ("ADD", "ADD", "below_low_similarity")
        await admit("s2")
        assert (await admit("s2")).decision == "NOT"
        failed = await admit("s3", "failure")
        better = await admit("s3")
        assert (better.decision, better.target_run_id) == ("REPLACE", failed.run_id)
        assert better.similarity is not None and 0.7 <= better.similarity < 0.95
        await admit("s4", references=["A"])
        merged = await admit("s4", references=["B"])
        assert (merged.decision, merged.rule) == ("MERGE", "complementary")
        hits = await engine.admission.search("default", "create a database schema", agent_id="s3")
        assert [h.run.id for h in hits] == [better.run_id]
    finally:
        await engine.close()


@pytest.mark.model
async def test_templated_tasks_that_differ_only_in_their_values_are_each_added(tmp_path: Path) -> None:
    """Issue 23: a batch of different invoice runs gave 228 MERGEs of 300 (cosine >= 0.95 between
    "Process invoice 29 for customer 44" and "… invoice 26 for customer 23"). Each is its own task;
    the same invoice again is still a duplicate, alone or in a batch."""
    engine = Engine(Settings(data_dir=tmp_path), embedder=LocalSentenceEmbedder(), llm=None, clock=FixedClock())
    await engine.start()
    try:
        tasks = [f"Process invoice {i} for customer {(i * 7) % 50}" for i in range(1, 61)]
        runs = [
            RunIn(task=task, outcome="success", agent_id="billing", steps=["Read the invoice", "Post it"])
            for task in tasks
        ]
        results = await engine.admission.admit_many("default", runs[:30])
        results += [await engine.admission.admit("default", run) for run in runs[30:]]
        assert Counter(r.decision for r in results) == {"ADD": 60}, Counter((r.decision, r.rule) for r in results)
        assert sum(r.rule == "other_values" for r in results) > 0  # they were near-duplicates to the model
        again = await engine.admission.admit("default", runs[4].model_copy(update={"steps": ["Read it", "Post it"]}))
        assert (again.decision, again.target_run_id) == ("NOT", results[4].run_id)
        # another trace of an invoice is judged against its own invoice's run, even where other
        # invoices' runs are nearer than its own (they were the top 3, and it was ADDed apart)
        shorter = {"steps": ["Checked the invoice total", "Posted it to the ledger"]}
        resent = [await engine.admission.admit("default", run.model_copy(update=shorter)) for run in runs[10:30]]
        assert [r.target_run_id for r in resent] == [r.run_id for r in results[10:30]], [r.rule for r in resent]
        assert {r.decision for r in resent} <= {"MERGE", "NOT"}
    finally:
        await engine.close()
