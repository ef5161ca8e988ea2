"""Heuristic repository contract, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from pydantic import ValidationError

from phronesis.engine import Engine
from phronesis.exceptions import ConflictError, InvalidInputError, NotFoundError
from phronesis.heuristics.models import HeuristicCreate, HeuristicUpdate
from phronesis.testing import FixedClock
from tests.engines import in_process_only


def make(**overrides: object) -> HeuristicCreate:
    data: dict[str, object] = {
        "condition_text": "the user says the room is too cold",
        "action_text": "raise the thermostat by two degrees",
        "domain": "home",
    }
    data.update(overrides)
    return HeuristicCreate.model_validate(data)


async def test_create_then_get_round_trips_every_field(engine: Engine) -> None:
    created = await engine.heuristics.add("t1", make(confidence=0.3, origin="learned", floor=0.1, attributes={"k": 1}))
    fetched = await engine.heuristics.repository.get("t1", created.id)
    assert fetched == created
    assert fetched.confidence == pytest.approx(0.3)
    assert fetched.alpha == pytest.approx(0.6) and fetched.beta == pytest.approx(1.4)
    assert fetched.created_at.tzinfo is not None
    assert fetched.embedding_model == "hashing-384"


async def test_tenants_never_see_each_other(engine: Engine) -> None:
    created = await engine.heuristics.add("t1", make())
    with pytest.raises(NotFoundError):
        await engine.heuristics.repository.get("t2", created.id)
    assert (await engine.heuristics.repository.list("t2")).items == []
    assert await engine.heuristics.match("t2", "the user says the room is too cold", min_similarity=0.0) == []


async def test_duplicate_id_is_a_conflict_and_writes_nothing(engine: Engine) -> None:
    await engine.heuristics.add("t1", make(id="h1"))
    with pytest.raises(ConflictError):
        await engine.heuristics.add_many("t1", [make(id="h2"), make(id="h1")])
    ids = [h.id for h in (await engine.heuristics.repository.list("t1")).items]
    assert ids == ["h1"]
    assert "h2" not in engine.index._partitions.get("t1", {}).get("home", [])


async def test_upsert_replaces_an_existing_id_keeping_its_history_all_or_nothing(engine: Engine) -> None:
    """An export imported back into its tenant (issue 26): an existing id is replaced (text,
    domain, confidence as a new prior) and matched by its new condition in its new domain, its
    fires kept; new ids are added; a bad line still writes nothing."""
    await engine.heuristics.add("t1", make(id="h1", confidence=0.3))
    await engine.heuristics.repository.record_fire("t1", "h1")
    replaced, added = await engine.heuristics.add_many(
        "t1",
        [
            make(id="h1", condition_text="the garden beds are dry", domain="garden", confidence=0.8),
            make(id="h2"),
        ],
        upsert=True,
    )
    assert (replaced.id, replaced.domain, replaced.condition_text) == ("h1", "garden", "the garden beds are dry")
    assert replaced.confidence == pytest.approx(0.8) and replaced.fire_count == 1 and added.fire_count == 0
    stored = await engine.heuristics.repository.get("t1", "h1")
    assert stored == replaced
    found = await engine.heuristics.match("t1", "the garden beds are dry", source="garden", min_similarity=0.0)
    assert [m.heuristic.id for m in found][:1] == ["h1"]
    assert "h1" not in [m.heuristic.id for m in await engine.heuristics.match("t1", "cold", source="home")]
    with pytest.raises(ConflictError, match="'h2' already exist"):
        await engine.heuristics.add_many("t1", [make(id="h2")])
    # an export imported back unchanged: the confidence it has keeps the evidence behind it
    await engine.heuristics.repository.update_confidence("t1", "h2", positive=True, magnitude=3.0, source="dev")
    learned = await engine.heuristics.repository.get("t1", "h2")
    (again,) = await engine.heuristics.add_many("t1", [make(id="h2", confidence=learned.confidence)], upsert=True)
    assert (again.alpha, again.beta, again.confidence) == (learned.alpha, learned.beta, learned.confidence)
    with pytest.raises(ConflictError, match="the same id appears twice"):
        await engine.heuristics.add_many("t1", [make(id="h3"), make(id="h3")], upsert=True)
    assert {h.id for h in (await engine.heuristics.repository.list("t1")).items} == {"h1", "h2"}


async def test_same_id_in_two_tenants_is_allowed(engine: Engine) -> None:
    await engine.heuristics.add("t1", make(id="shared"))
    await engine.heuristics.add("t2", make(id="shared"))
    assert (await engine.heuristics.repository.get("t2", "shared")).tenant == "t2"


async def test_confidence_update_returns_old_new_delta_and_logs_it(engine: Engine) -> None:
    h = await engine.heuristics.add("t1", make(confidence=0.3))
    update = await engine.heuristics.update_confidence("t1", h.id, positive=True, magnitude=1.0, source="test")
    assert update.applied
    assert update.old_confidence == pytest.approx(0.3)
    assert update.new_confidence == pytest.approx(1.6 / 3.0)
    assert update.delta == pytest.approx(update.new_confidence - update.old_confidence)
    history = await engine.heuristics.repository.confidence_history("t1", h.id)
    assert [(e["source"], e["positive"]) for e in history] == [("test", True)]


async def test_an_unset_magnitude_means_one_and_zero_is_refused_never_one(engine: Engine) -> None:
    """Seed 001: unset is 1.0. GLADyS's proto also read 0 as unset; 0 meaning 1 doubled a boost
    meant to be none (issue 21), so 0 is refused."""
    h = await engine.heuristics.add("t1", make())
    update = await engine.heuristics.update_confidence("t1", h.id, positive=False, magnitude=None, source="s")
    assert update.beta == pytest.approx(2.0) and update.magnitude == 1.0
    with pytest.raises(InvalidInputError, match="omit it for 1.0"):
        await engine.heuristics.update_confidence("t1", h.id, positive=True, magnitude=0, source="s")


@pytest.mark.parametrize("magnitude", [-1.0, float("nan"), float("inf"), 10.5, 1000.0])
async def test_bad_magnitudes_are_refused(engine: Engine, magnitude: float) -> None:
    h = await engine.heuristics.add("t1", make())
    with pytest.raises(InvalidInputError):
        await engine.heuristics.update_confidence("t1", h.id, positive=True, magnitude=magnitude, source="s")
    assert (await engine.heuristics.repository.get("t1", h.id)).alpha == pytest.approx(1.0)


async def test_constraints_locked_floor_ceiling_and_weight(engine: Engine) -> None:
    locked = await engine.heuristics.add("t1", make(locked=True, confidence=0.9))
    update = await engine.heuristics.update_confidence("t1", locked.id, positive=False, magnitude=5, source="s")
    assert not update.applied and update.new_confidence == pytest.approx(0.9)

    capped = await engine.heuristics.add("t1", make(ceiling=0.6))
    for _ in range(5):
        update = await engine.heuristics.update_confidence("t1", capped.id, positive=True, magnitude=1, source="s")
    assert update.new_confidence == pytest.approx(0.6)

    floored = await engine.heuristics.add("t1", make(floor=0.4))
    for _ in range(5):
        update = await engine.heuristics.update_confidence("t1", floored.id, positive=False, magnitude=1, source="s")
    assert update.new_confidence == pytest.approx(0.4)

    heavy = await engine.heuristics.add("t1", make(feedback_weight=2.0))
    update = await engine.heuristics.update_confidence("t1", heavy.id, positive=True, magnitude=1, source="s")
    assert update.alpha == pytest.approx(3.0)


async def test_concurrent_updates_all_count(engine: Engine) -> None:
    """Atomic in SQL: 20 concurrent +1 updates add exactly 20 to alpha."""
    h = await engine.heuristics.add("t1", make())
    await asyncio.gather(
        *(engine.heuristics.update_confidence("t1", h.id, positive=True, magnitude=1, source="s") for _ in range(20))
    )
    assert (await engine.heuristics.repository.get("t1", h.id)).alpha == pytest.approx(21.0)


async def test_unknown_heuristic_update_is_not_found(engine: Engine) -> None:
    with pytest.raises(NotFoundError):
        await engine.heuristics.update_confidence("t1", "missing", positive=True, magnitude=1, source="s")
    with pytest.raises(NotFoundError):
        await engine.heuristics.repository.record_fire("t1", "missing")


async def test_fire_and_outcome_counts_are_separate_from_confidence(engine: Engine, clock: FixedClock) -> None:
    h = await engine.heuristics.add("t1", make())
    await engine.heuristics.repository.record_fire("t1", h.id)
    await engine.heuristics.repository.record_outcome("t1", h.id, success=True)
    await engine.heuristics.repository.record_outcome("t1", h.id, success=False)
    after = await engine.heuristics.repository.get("t1", h.id)
    assert (after.fire_count, after.success_count, after.failure_count) == (1, 1, 1)
    assert after.last_fired_at == clock.now()
    assert after.confidence == pytest.approx(0.5)


async def test_patch_reembeds_moves_domain_and_reseeds_prior(engine: Engine) -> None:
    h = await engine.heuristics.add("t1", make())
    patched = await engine.heuristics.update(
        "t1", h.id, HeuristicUpdate(condition_text="a package is delivered", domain="mail", confidence=0.8)
    )
    assert patched.domain == "mail" and patched.confidence == pytest.approx(0.8)
    matches = await engine.heuristics.match("t1", "a package is delivered", source="mail")
    assert [m.heuristic.id for m in matches] == [h.id]
    assert await engine.heuristics.match("t1", "a package is delivered", source="home") == []


async def test_patch_floor_above_ceiling_is_refused(engine: Engine) -> None:
    h = await engine.heuristics.add("t1", make(ceiling=0.5))
    with pytest.raises(InvalidInputError):
        await engine.heuristics.update("t1", h.id, HeuristicUpdate(floor=0.7))


async def test_delete_removes_row_and_index_entry(engine: Engine) -> None:
    h = await engine.heuristics.add("t1", make())
    await engine.heuristics.delete("t1", h.id)
    assert await engine.heuristics.match("t1", "the user says the room is too cold") == []
    with pytest.raises(NotFoundError):
        await engine.heuristics.delete("t1", h.id)


async def test_index_is_rebuilt_from_the_store_of_record(engine: Engine) -> None:
    in_process_only(engine)
    created = await engine.heuristics.add_many("t1", [make(condition_text=f"condition number {i}") for i in range(30)])
    engine.index.clear()
    assert await engine.heuristics.load_index() == 30
    found = await engine.heuristics.match("t1", "condition number 7", min_similarity=0.9)
    assert found[0].heuristic.id == created[7].id


async def test_rows_from_another_embedding_model_are_reembedded_on_load(engine: Engine) -> None:
    in_process_only(engine)
    h = await engine.heuristics.add("t1", make())
    await engine.heuristics.repository.set_embeddings([("t1", h.id, np.ones(8, dtype=np.float32))], "old-model")
    await engine.heuristics.load_index()
    matches = await engine.heuristics.match("t1", "the user says the room is too cold")
    assert matches and matches[0].similarity == pytest.approx(1.0, abs=1e-5)
    stored = [row async for batch in engine.heuristics.repository.iter_rows() for row in batch]
    assert stored[0].embedding_model == "hashing-384"


async def test_explicit_nulls_in_a_patch_leave_fields_alone(engine: Engine) -> None:
    """Found by the API fuzzer: {"floor": null} used to crash the update."""
    h = await engine.heuristics.add("t1", make(name="named", floor=0.2))
    patch = HeuristicUpdate.model_validate({"floor": None, "condition_text": None, "locked": None, "name": None})
    after = await engine.heuristics.update("t1", h.id, patch)
    assert (after.floor, after.condition_text, after.locked, after.name) == (0.2, h.condition_text, False, None)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_an_update_refuses_attributes_json_cannot_hold(value: float) -> None:
    """Create refused NaN and infinity in attributes; an update took them and stored them."""
    with pytest.raises(ValidationError):
        HeuristicUpdate(attributes={"reading": value})
