"""``tenant_settings`` (issue 25's Apply): a tenant's tuned value, recorded as a decision, read
by every process from the database, and changed one at a time."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.exceptions import InvalidInputError
from phronesis.explanations import explain
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.tenant_settings import ApplyIn, TenantSettings
from phronesis.testing import FixedClock
from tests.replay.test_executive_replay import NOW

NAME = "executive.heuristic_threshold"


def _store(database: Database) -> TenantSettings:
    settings = Settings.model_validate({"executive": {"heuristic_threshold": 0.7}})
    clock = FixedClock(NOW)
    return TenantSettings(settings, database, DecisionRecordRepository(database, clock=clock), clock)


async def test_apply_reset_and_list_each_recorded_as_a_decision(database: Database) -> None:
    store = _store(database)
    assert await store.value("t", NAME) == 0.7
    applied = await store.apply("t", NAME, ApplyIn(value=0.6, note="tuned: 120 LLM calls avoided"))
    assert (applied.value, applied.applied, applied.configured) == (0.6, 0.6, 0.7)
    assert await store.value("t", NAME) == 0.6 and await store.value("other", NAME) == 0.7
    record = await DecisionRecordRepository(database).get("t", applied.decision_id or "")
    assert (record.kind, record.subject_id, record.path, record.action) == ("setting", NAME, "apply", f"{NAME}=0.6")
    assert (
        record.inputs["old"] is None and record.inputs["new"] == 0.6 and record.reason == "tuned: 120 LLM calls avoided"
    )
    reset = await store.apply("t", NAME, ApplyIn(value=None))
    assert reset.value == 0.7 and await store.value("t", NAME) == 0.7
    undo = await DecisionRecordRepository(database).get("t", reset.decision_id or "")
    assert (undo.path, undo.inputs["old"], undo.attributes) == ("reset", 0.6, {"before": 0.6, "after": 0.7})
    listed = {s.name: s for s in await store.list("t")}
    assert listed[NAME].applied is None and listed[NAME].decision_id == reset.decision_id
    assert listed["routing.cascade_threshold"].decision_id is None


async def test_a_reset_that_changes_nothing_records_nothing(database: Database) -> None:
    """Issue 52: resetting a value the tenant never had wrote a decision record of a change."""
    store = _store(database)
    nothing = await store.apply("t", NAME, ApplyIn(value=None))
    assert (nothing.value, nothing.applied, nothing.decision_id, nothing.updated_at) == (0.7, None, None, None)
    assert (await DecisionRecordRepository(database).page("t", kind="setting")).total == 0
    applied = await store.apply("t", NAME, ApplyIn(value=0.6))
    reset = await store.apply("t", NAME, ApplyIn(value=None))
    again = await store.apply("t", NAME, ApplyIn(value=None))  # already back: nothing more to record
    assert again.decision_id == reset.decision_id != applied.decision_id
    records = (await DecisionRecordRepository(database).page("t", kind="setting")).items
    assert len(records) == 2
    # the trial: a reset read "set executive.strategy=heuristic_first", as if a value had been chosen
    said = sorted(explain(r) for r in records)
    assert said == [f"reset {NAME} to its configured value (0.7)", f"set {NAME}=0.6"]


async def test_always_llm_where_no_llm_is_configured_is_taken_with_a_warning(database: Database) -> None:
    settings = Settings.model_validate({"executive": {"heuristic_threshold": 0.7}})
    clock = FixedClock(NOW)
    records = DecisionRecordRepository(database, clock=clock)
    without = TenantSettings(settings, database, records, clock, llm_configured=False)
    applied = await without.apply("t", "executive.strategy", ApplyIn(value="always_llm"))
    assert applied.value == "always_llm" and applied.warning is not None
    assert "no LLM configured" in applied.warning and "llm_unavailable" in applied.warning
    assert (await without.apply("t", "executive.strategy", ApplyIn(value="heuristic_first"))).warning is None
    with_llm = TenantSettings(settings, database, records, clock, llm_configured=True)
    assert (await with_llm.apply("u", "executive.strategy", ApplyIn(value="always_llm"))).warning is None


def test_a_value_that_is_no_number_is_refused() -> None:
    for bad in (float("nan"), float("inf"), True, "x" * 65):
        with pytest.raises(ValidationError):
            ApplyIn(value=bad)


async def test_a_number_setting_refuses_a_name_and_a_choice_refuses_a_number(database: Database) -> None:
    """Text is a choice's value only: "0.5" is not quietly taken for 0.5 by a threshold, nor 0.5
    by the strategy; nothing is written either way."""
    store = _store(database)
    with pytest.raises(InvalidInputError, match=f"{NAME} takes a number from 0.3 to 0.95: send 0.5 as a JSON number"):
        await store.apply("t", NAME, ApplyIn(value="0.5"))
    with pytest.raises(InvalidInputError, match=r"not 'always_llm' \(did you mean executive.strategy\?\)"):
        await store.apply("t", NAME, ApplyIn(value="always_llm"))
    with pytest.raises(InvalidInputError, match="executive.strategy takes one of heuristic_first, always_llm"):
        await store.apply("t", "executive.strategy", ApplyIn(value=0.5))
    with pytest.raises(InvalidInputError, match="not 'fastest'"):
        await store.apply("t", "executive.strategy", ApplyIn(value="fastest"))
    assert (await store.read("t", "executive.")).numbers == {} and (await store.read("t", "executive.")).choices == {}


async def test_the_strategy_is_a_choice_applied_read_listed_and_reset(database: Database) -> None:
    """``executive.strategy`` holds a name (issue 25: Apply of a replayed strategy), recorded as
    any change is, and read beside the tenant's numbers in one read."""
    store = _store(database)
    assert await store.current("t", "executive.strategy") == "heuristic_first"  # the configured one
    await store.apply("t", NAME, ApplyIn(value=0.6))
    applied = await store.apply("t", "executive.strategy", ApplyIn(value="always_llm", note="replayed: baseline"))
    assert (applied.value, applied.applied, applied.configured) == ("always_llm", "always_llm", "heuristic_first")
    read = await store.read("t", "executive.")
    assert read.numbers == {NAME: 0.6} and read.choices == {"executive.strategy": "always_llm"}
    assert await store.applied("t", "executive.") == {NAME: 0.6}  # numbers only, as before
    record = await DecisionRecordRepository(database).get("t", applied.decision_id or "")
    assert record.action == "executive.strategy=always_llm" and record.inputs["new"] == "always_llm"
    changed = await store.apply("t", "executive.strategy", ApplyIn(value="urgency_tiered"))
    again = await DecisionRecordRepository(database).get("t", changed.decision_id or "")
    assert again.attributes == {"before": "always_llm", "after": "urgency_tiered"}
    listed = {s.name: s for s in await store.list("t")}
    assert listed["executive.strategy"].value == "urgency_tiered" and listed[NAME].value == 0.6
    reset = await store.apply("t", "executive.strategy", ApplyIn(value=None))
    assert reset.value == "heuristic_first" and await store.current("t", "executive.strategy") == "heuristic_first"
    assert (await store.read("t", "executive.")).choices == {}


async def test_a_strategy_is_refused_where_an_ab_experiment_assigns_it(database: Database) -> None:
    """Listed as applied and never used would be a success we do not have: refused, saying why."""
    settings = Settings.model_validate({"executive": {"experiment_arms": {"heuristic_first": 1, "always_llm": 1}}})
    clock = FixedClock(NOW)
    store = TenantSettings(settings, database, DecisionRecordRepository(database, clock=clock), clock)
    with pytest.raises(InvalidInputError, match="A/B experiment assigns each event's strategy"):
        await store.apply("t", "executive.strategy", ApplyIn(value="always_llm"))
    assert (await store.read("t", "executive.")).choices == {}


async def test_each_setting_takes_its_own_range(database: Database) -> None:
    """A probability for the thresholds of similarity, a 0-10 score for proactive's (seed 004)."""
    store = _store(database)
    for name, bad in (
        ("routing.cascade_threshold", 1.5),
        ("admission.low_similarity", -0.1),
        ("proactive.score_threshold.new", 10.5),
        (NAME, 0.2),
    ):
        with pytest.raises(InvalidInputError, match="takes a value from"):
            await store.apply("t", name, ApplyIn(value=bad))
        assert (await store.applied("t", name)) == {}  # nothing half-written
    await store.apply("t", "proactive.score_threshold.building", ApplyIn(value=6.5))
    await store.apply("t", "admission.low_similarity", ApplyIn(value=0.8))
    assert await store.applied("t", "proactive.score_threshold.") == {"proactive.score_threshold.building": 6.5}
    assert await store.value("t", "proactive.score_threshold.new") == 7.0  # seed 004's default for new
    assert await store.value("t", "admission.low_similarity") == 0.8


async def test_pairs_keep_their_order(database: Database) -> None:
    """A duplicate threshold below the pre-filter's low one, a soon tier starting above the
    immediate one: refused, against the other's value now (applied or configured)."""
    store = _store(database)
    await store.apply("t", "admission.low_similarity", ApplyIn(value=0.8))
    with pytest.raises(InvalidInputError, match=r"must not be below admission.low_similarity \(0.8\)"):
        await store.apply("t", "admission.duplicate_threshold", ApplyIn(value=0.75))
    with pytest.raises(InvalidInputError, match="must not be above executive.urgency.immediate_min"):
        await store.apply("t", "executive.urgency.soon_min", ApplyIn(value=0.9))
    assert await store.applied("t", "executive.") == {}
    await store.apply("t", "admission.duplicate_threshold", ApplyIn(value=0.85))
    with pytest.raises(InvalidInputError, match="must not be above"):
        await store.apply("t", "admission.low_similarity", ApplyIn(value=0.9))
    # a reset the other value stands in the way of says which (a trial read "not 0.75" for a reset)
    await store.apply("t", "routing.high_threshold", ApplyIn(value=0.9))
    await store.apply("t", "routing.low_threshold", ApplyIn(value=0.85))
    with pytest.raises(InvalidInputError, match="cannot go back to its configured value.*reset routing.low_threshold"):
        await store.apply("t", "routing.high_threshold", ApplyIn(value=None))


async def test_concurrent_changes_are_recorded_one_after_the_other(database: Database) -> None:
    """Each change records the value it replaced. The row is locked while it changes; without the
    lock two changes at once on PostgreSQL both read the same old value, and the history has a
    fork: the records no longer chain from the first value to the last."""
    store = _store(database)
    await store.apply("t", NAME, ApplyIn(value=0.5))  # the row exists: the changes race on it
    values = [round(0.51 + i / 100, 2) for i in range(12)]
    await asyncio.gather(*(store.apply("t", NAME, ApplyIn(value=v)) for v in values))
    records = await DecisionRecordRepository(database).query("t", kind="setting", limit=100)
    olds = sorted(float(r.inputs["old"]) for r in records if r.inputs["old"] is not None)
    final = await store.value("t", NAME)
    # a chain: every value but the last was replaced exactly once
    assert olds == sorted(v for v in [0.5, *values] if v != final)


async def test_a_count_is_listed_as_a_whole_number(database: Database) -> None:
    """A daily cap of 2 reads 2 in JSON, not 2.0 (a trial); a threshold stays a number."""
    store = _store(database)
    await store.apply("t", "proactive.daily_cap.new", ApplyIn(value=3))
    listed = {s.name: s.model_dump(mode="json") for s in await store.list("t")}
    cap = listed["proactive.daily_cap.new"]
    assert (cap["value"], cap["applied"]) == (3, 3) and isinstance(cap["configured"], int)
    assert listed[NAME]["value"] == 0.7
