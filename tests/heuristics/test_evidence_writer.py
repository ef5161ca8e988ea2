"""The evidence writer: every rule of seed 001's "applying signals", atomic and idempotent."""

from __future__ import annotations

import asyncio
import random

import pytest

from phronesis.engine import Engine
from phronesis.exceptions import NotFoundError
from phronesis.heuristics.evidence_writer import EvidenceItem, EvidencePolicy
from phronesis.heuristics.models import HeuristicCreate
from phronesis.heuristics.repository import HeuristicRepository


async def _heuristic(engine: Engine, confidence: float = 0.5, **fields: object) -> str:
    created = await engine.heuristics.add(
        "t",
        HeuristicCreate(condition_text="c", action_text="a", confidence=confidence, **fields),  # type: ignore[arg-type]
    )
    return created.id


async def test_the_same_key_counts_once_across_and_within_batches(engine: Engine) -> None:
    repo = engine.heuristics.repository
    hid = await _heuristic(engine)
    item = EvidenceItem(hid, True, 1.0, "implicit_timeout", key="fire:1:implicit")
    first, again = await repo.apply_evidence("t", [item, item])
    assert first is not None and first.applied and again is not None and again.effect == "duplicate"
    (later,) = await repo.apply_evidence("t", [item])
    assert later is not None and later.effect == "duplicate" and later.new_confidence == first.new_confidence
    assert len((await engine.learning.history("t", hid)).items) == 1


async def test_global_bounds_and_decay(engine: Engine) -> None:
    repo = engine.heuristics.repository
    repo.evidence_policy = EvidencePolicy(bounds=(0.05, 0.95), decay_k=1.0)
    hid = await _heuristic(engine, 0.5)
    rated = [EvidenceItem(hid, True, 1.0, "dev", explicit=True) for _ in range(50)]
    updates = await repo.apply_evidence("t", rated)
    weights = [u.weight for u in updates if u is not None]
    assert weights[:3] == pytest.approx([1.0, 0.5, 1 / 3])  # F-03: 1 / (1 + k·n)
    assert updates[-1] is not None and updates[-1].new_confidence <= 0.95
    # seed 001 places the decay in interpret_explicit_feedback: an implicit signal keeps its weight
    (implicit,) = await repo.apply_evidence("t", [EvidenceItem(hid, True, 1.0, "implicit_timeout")])
    assert implicit is not None and implicit.weight == 1.0


async def test_locked_floor_ceiling_and_weight(engine: Engine) -> None:
    repo = engine.heuristics.repository
    locked = await _heuristic(engine, 0.5, locked=True)
    floored = await _heuristic(engine, 0.5, floor=0.4)
    heavy = await _heuristic(engine, 0.5, feedback_weight=2.0)
    results = await repo.apply_evidence(
        "t",
        [
            EvidenceItem(locked, True, 1.0, "dev"),
            *[EvidenceItem(floored, False, 1.0, "dev") for _ in range(20)],
            EvidenceItem(heavy, True, 1.0, "dev"),
        ],
    )
    assert results[0] is not None and results[0].effect == "locked" and not results[0].applied
    assert results[-2] is not None and results[-2].new_confidence == 0.4
    assert results[-1] is not None and results[-1].weight == 2.0 and results[-1].new_confidence == pytest.approx(0.75)


async def test_concurrent_writers_lose_no_update(engine: Engine) -> None:
    """16 writers × 25 signals on 4 heuristics: every piece of evidence is counted exactly once."""
    repo = engine.heuristics.repository
    ids = [await _heuristic(engine, 0.5) for _ in range(4)]

    async def writer(w: int) -> None:
        for i in range(25):
            await repo.apply_evidence("t", [EvidenceItem(ids[(w + i) % 4], i % 2 == 0, 1.0, "dev", key=f"{w}:{i}")])

    await asyncio.gather(*(writer(w) for w in range(16)))
    rows = [await repo.get("t", hid) for hid in ids]
    assert sum(r.alpha - r.prior_alpha for r in rows) == pytest.approx(16 * 13)
    assert sum(r.beta - r.prior_beta for r in rows) == pytest.approx(16 * 12)
    assert sum(r.signal_count for r in rows) == 16 * 25


async def test_confidence_stays_in_the_heuristics_limits(engine: Engine) -> None:
    """Random runs of signals (seeded): confidence never leaves [floor, ceiling]."""
    repo: HeuristicRepository = engine.heuristics.repository
    rng = random.Random(7)
    for _ in range(25):
        hid = await _heuristic(engine, rng.random(), floor=0.2, ceiling=0.9)
        signals = [(rng.random() < 0.5, rng.uniform(0.01, 10.0)) for _ in range(rng.randint(1, 30))]
        updates = await repo.apply_evidence("t", [EvidenceItem(hid, p, m, "dev") for p, m in signals])
        assert all(u is not None and 0.2 <= u.new_confidence <= 0.9 for u in updates)


async def test_group_commit_isolates_a_faulty_caller(engine: Engine) -> None:
    """Concurrent callers share a transaction; one naming an unknown heuristic fails alone."""
    repo = engine.heuristics.repository
    hid = await _heuristic(engine, 0.5)
    good = [repo.apply_evidence("t", [EvidenceItem(hid, True, 1.0, "dev", key=f"k{i}")]) for i in range(5)]
    bad = repo.apply_evidence(
        "t", [EvidenceItem(hid, True, 1.0, "dev", key="bad"), EvidenceItem("nope", True, 1.0, "dev")]
    )
    results = await asyncio.gather(*good, bad, return_exceptions=True)
    assert isinstance(results[-1], NotFoundError)
    assert all(isinstance(r, list) and r[0] is not None and r[0].applied for r in results[:-1])
    history = (await engine.learning.history("t", hid)).items
    assert len(history) == 5 and all(h.positive for h in history)  # "bad"'s first item was not committed
