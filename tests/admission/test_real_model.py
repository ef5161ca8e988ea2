"""Seed 003's four scenarios with the real local sentence model (all-MiniLM-L6-v2), as shipped."""

from __future__ import annotations

from pathlib import Path

import pytest

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
