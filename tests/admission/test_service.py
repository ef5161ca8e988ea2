"""The admission pipeline end to end, on SQLite and PostgreSQL: effects, records, scopes, batches, races."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from sqlalchemy import func, select

from phronesis.admission.executor import StalePlan
from phronesis.admission.models import RunIn
from phronesis.engine import Engine
from phronesis.exceptions import ConflictError, InvalidInputError
from phronesis.storage.tables import admission_memory_decisions, admission_runs
from phronesis.testing import FixedClock
from tests.engines import EngineFactory, in_process_only

T = "default"
SUMMARY = "The agent read the orders table and generated the schema."
"""A caller summary shared by runs that differ in outcome or references: their similarity is 1."""


async def counts(engine: Engine) -> tuple[int, int]:
    async with engine.database.engine.connect() as conn:
        runs = (await conn.execute(select(func.count()).select_from(admission_runs))).scalar_one()
        decisions = (await conn.execute(select(func.count()).select_from(admission_memory_decisions))).scalar_one()
    return int(runs), int(decisions)


@pytest.fixture
async def engine(make_engine: EngineFactory) -> Engine:
    built: Engine = await make_engine()
    return built


async def admit(engine: Engine, **fields: Any):  # type: ignore[no-untyped-def]
    fields.setdefault("task", "Generate schema")
    fields.setdefault("outcome", "success")
    return await engine.admit_run(**fields)


async def test_scenario_1_a_new_unique_task_is_added(engine: Engine) -> None:
    first = await admit(engine)
    assert (first.decision, first.stage, first.rule, first.stored) == ("ADD", "prefilter", "no_similar_runs", True)
    assert first.run is not None and first.run.status == "active" and first.run.canonical
    record = await engine.decisions.get("default", first.decision_id)  # issue 52: the whole decision's time
    assert record.latency_ms is not None and record.latency_ms > 0 and record.attributes["llm_latency_ms"] is None
    other = await admit(engine, task="Translate the onboarding guide into French")
    assert (other.decision, other.rule) == ("ADD", "below_low_similarity")
    assert other.similar_runs and other.similar_runs[0].run_id == first.run_id


async def test_similar_runs_report_reference_counts_only_where_they_were_read(engine: Engine) -> None:
    """A judge's candidates carry their counts; a run below the threshold is not read, so its counts are None."""
    first = await admit(engine, references=["A", "B"])
    far = await admit(engine, task="Translate the onboarding guide into French")
    assert (far.rule, far.similar_runs[0].run_id) == ("below_low_similarity", first.run_id)
    assert (far.similar_runs[0].references, far.similar_runs[0].artifacts) == (None, None)
    close = await admit(engine, references=["C"])
    assert close.decision == "MERGE" and close.similar_runs[0].references == 2


async def test_scenario_2_an_identical_run_is_not_stored_but_decided(engine: Engine) -> None:
    first = await admit(engine)
    again = await admit(engine)
    assert (again.decision, again.target_run_id, again.stored, again.run) == ("NOT", first.run_id, False, None)
    assert again.similarity == 1.0
    assert await counts(engine) == (1, 2)
    stored = await engine.admission.run(T, first.run_id)
    assert stored.duplicate_count == 1  # the duplicate counts as one more use
    record = await engine.decisions.get(T, again.decision_id)
    assert (record.kind, record.action, record.path, record.subject_id) == (
        "admission",
        "NOT",
        "prefilter",
        again.run_id,
    )
    assert record.attributes["target_run_id"] == first.run_id
    assert record.llm_calls == 0  # no LLM: counted as none, not unknown (the dashboard's LLM figures)


async def test_scenario_3_a_better_version_supersedes_never_deletes(engine: Engine, clock: FixedClock) -> None:
    failed = await admit(engine, outcome="failure")
    clock.advance(seconds=5)
    better = await admit(engine, outcome="success")
    assert (better.decision, better.target_run_id, better.rule) == ("REPLACE", failed.run_id, "better_outcome")
    old = await engine.admission.run(T, failed.run_id)
    assert (old.status, old.superseded_by, old.superseded_at) == ("superseded", better.run_id, clock.now())
    hits = await engine.admission.search(T, "Generate schema")
    assert [h.run.id for h in hits] == [better.run_id]  # superseded runs are never retrieved


async def test_scenario_4_complementary_runs_merge_and_aggregate(engine: Engine, clock: FixedClock) -> None:
    a = await admit(engine, references=["A"], usage_count=3)
    clock.advance(seconds=1)
    b = await admit(engine, references=["B"], usage_count=2)
    assert (b.decision, b.target_run_id, b.rule) == ("MERGE", a.run_id, "complementary")
    old, new = await engine.admission.run(T, a.run_id), await engine.admission.run(T, b.run_id)
    assert old.status == new.status == "active"
    assert old.merge_group == new.merge_group == a.run_id
    assert (old.canonical, new.canonical) == (False, True)  # same outcome: the newer is canonical
    hits = await engine.admission.search(T, "Generate schema", min_similarity=-1.0)
    assert {h.run.id for h in hits} == {a.run_id, b.run_id}
    assert [h.similarity for h in hits] == sorted((h.similarity for h in hits), reverse=True)  # best first
    group = hits[0].group
    assert group is not None and (group.size, group.usage_count, group.references) == (2, 5, ["A", "B"])
    collapsed = await engine.admission.search(T, "Generate schema", min_similarity=-1.0, collapse=True)
    assert [h.run.id for h in collapsed] == [b.run_id]  # the group's canonical run, at the group's place
    assert collapsed[0].best_similarity == max(h.similarity for h in hits)


async def test_a_group_found_through_another_member_shows_its_canonical_run(engine: Engine, clock: FixedClock) -> None:
    """The query matches only the older member: hits are that member alone (issue 52: a canonical
    below the floor was listed, out of score order), and ``collapse`` returns the group's canonical
    run, not the member that matched, at the member's place (``best_similarity``)."""
    old = await admit(engine, references=["A"], summary="Parsed the orders CSV and inferred each column type")
    clock.advance(seconds=1)
    new = await admit(
        engine, references=["B"], summary="Parsed the orders CSV and inferred each column type, then wrote schema.sql"
    )
    assert (new.decision, (await engine.admission.run(T, new.run_id)).canonical) == ("MERGE", True)
    query = "Parsed the orders CSV and inferred each column type"
    floor = (
        1.0
        + max(
            h.similarity for h in await engine.admission.search(T, query, min_similarity=-1.0) if h.run.id == new.run_id
        )
    ) / 2
    hits = await engine.admission.search(T, query, min_similarity=floor)
    assert [h.run.id for h in hits] == [old.run_id] and floor <= hits[0].similarity
    collapsed = await engine.admission.search(T, query, min_similarity=floor, collapse=True)
    assert [h.run.id for h in collapsed] == [new.run_id]
    assert collapsed[0].similarity < floor <= collapsed[0].best_similarity == hits[0].similarity


async def test_success_stays_canonical_over_a_newer_failure(engine: Engine) -> None:
    success = await admit(engine, references=["A"], summary=SUMMARY)
    failure = await admit(engine, outcome="failure", references=["A", "trace.log"], summary=SUMMARY)
    assert (failure.decision, failure.rule) == ("MERGE", "complementary_worse")
    assert (await engine.admission.run(T, success.run_id)).canonical
    assert not (await engine.admission.run(T, failure.run_id)).canonical


async def test_a_worse_run_with_nothing_new_is_not(engine: Engine) -> None:
    success = await admit(engine, summary=SUMMARY)
    worse = await admit(engine, outcome="failure", summary=SUMMARY)
    assert (worse.decision, worse.rule, worse.stored) == ("NOT", "worse_and_nothing_new", False)
    # a failure is not one more use of the success (issue 23: it inflated the group's usage)
    assert (await engine.admission.run(T, success.run_id)).duplicate_count == 0


async def test_runs_only_meet_runs_of_their_own_scope_and_tenant(engine: Engine) -> None:
    await admit(engine, agent_id="a1", user_id="u1")
    for scope in ({"agent_id": "a2", "user_id": "u1"}, {"agent_id": "a1", "user_id": "u2"}, {"agent_id": "a1"}):
        assert (await admit(engine, **scope)).decision == "ADD", scope
    assert (await admit(engine, agent_id="a1", user_id="u1", tenant="other")).decision == "ADD"
    assert (await admit(engine, agent_id="a1", user_id="u1")).decision == "NOT"
    assert await engine.admission.search("other", "Generate schema", agent_id="a9") == []


async def test_an_explicit_replace_of_another_scope_is_refused_and_nothing_is_written(engine: Engine) -> None:
    theirs = await admit(engine, agent_id="other-agent", outcome="failure")
    before = await counts(engine)
    with pytest.raises(InvalidInputError) as error:
        await admit(engine, replaces=theirs.run_id)
    assert error.value.field == "replaces" and "another scope" in str(error.value)
    with pytest.raises(InvalidInputError, match="another task"):
        await admit(engine, agent_id="other-agent", task="Write the changelog", replaces=theirs.run_id)
    with pytest.raises(InvalidInputError, match="no stored run"):
        await admit(engine, replaces="missing")
    assert await counts(engine) == before


async def test_an_explicit_replace_wins_over_the_prefilter_and_only_once(engine: Engine) -> None:
    old = await admit(engine, outcome="failure", steps=["tried the v1 API"])
    new = await admit(engine, outcome="partial", steps=["a completely different approach"], replaces=old.run_id)
    assert (new.decision, new.stage, new.target_run_id) == ("REPLACE", "explicit", old.run_id)
    with pytest.raises(ConflictError, match="already superseded"):
        await admit(engine, outcome="success", replaces=old.run_id)


async def test_resending_a_run_is_idempotent_and_an_id_clash_is_a_conflict(engine: Engine) -> None:
    first = await admit(engine, id="run-1")
    again = await admit(engine, id="run-1")
    assert (again.decision, again.rule, again.target_run_id) == ("NOT", "resent", "run-1")
    assert (await engine.admission.run(T, first.run_id)).duplicate_count == 0
    with pytest.raises(ConflictError) as error:
        await admit(engine, id="run-1", outcome="failure")
    assert error.value.field == "id"


async def test_a_batch_deduplicates_within_itself_in_one_transaction(engine: Engine) -> None:
    runs = [
        RunIn(task="Generate schema", outcome="failure"),
        RunIn(task="Generate schema", outcome="failure"),
        RunIn(task="Generate schema", outcome="success"),
        RunIn(task="Translate the onboarding guide into French", outcome="success"),
    ]
    results = await engine.admission.admit_many(T, runs)
    assert [r.decision for r in results] == ["ADD", "NOT", "REPLACE", "ADD"]
    assert results[1].target_run_id == results[0].run_id and results[2].target_run_id == results[0].run_id
    decisions = (await engine.admission.decisions(T, batch_id=None, limit=10)).items
    assert {d.batch_id for d in decisions} == {decisions[0].batch_id} and decisions[0].batch_id
    first = await engine.admission.run(T, results[0].run_id)
    assert first.superseded_by == results[2].run_id
    assert first.duplicate_count == 1  # the NOT counted against a run written earlier in the same batch


async def test_a_batch_with_one_bad_run_writes_nothing(engine: Engine) -> None:
    with pytest.raises(InvalidInputError) as error:
        await engine.admission.admit_many(
            T, [RunIn(task="Generate schema", outcome="success"), RunIn(task="x", outcome="success", replaces="nope")]
        )
    assert error.value.field == "runs.1.replaces"
    with pytest.raises(InvalidInputError, match="twice"):
        await engine.admission.admit_many(
            T, [RunIn(id="r", task="a", outcome="success"), RunIn(id="r", task="b", outcome="success")]
        )
    assert await counts(engine) == (0, 0)


async def test_bad_input_names_the_field(engine: Engine) -> None:
    with pytest.raises(InvalidInputError) as error:
        await engine.admit_run("Generate schema", outcome="done")
    assert error.value.field == "outcome"
    with pytest.raises(InvalidInputError) as blank:
        await engine.admit_run("   ", outcome="success")
    assert blank.value.field == "task"


async def test_a_calibrated_threshold_turns_a_near_duplicate_into_not(engine: Engine) -> None:
    await admit(engine, summary="The agent read orders and wrote the schema file")
    probe = RunIn(task="Generate schema", outcome="success", summary="The agent read orders and wrote a schema file")
    vectors = await engine.embedder.embed(["The agent read orders and wrote the schema file", probe.summary or ""])
    similarity = float(vectors[0] @ vectors[1])
    assert 0.7 < similarity < 0.95
    await engine.admission.calibrations.save(T, similarity - 0.01, {"objective": "test"})
    result = await engine.admission.admit(T, probe)
    assert (result.decision, result.rule) == ("NOT", "near_duplicate")
    assert (await engine.decisions.get(T, result.decision_id)).attributes["duplicate_threshold"] == pytest.approx(
        similarity - 0.01
    )


async def test_the_same_run_admitted_twice_at_once_is_added_once(engine: Engine) -> None:
    results = await asyncio.gather(*(admit(engine, steps=["race"]) for _ in range(4)))
    assert sorted(r.decision for r in results) == ["ADD", "NOT", "NOT", "NOT"]
    assert (await counts(engine))[0] == 1


async def test_two_plans_to_add_the_same_run_meet_the_unique_key(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both admissions plan ADD before either writes; the unique content key lets one in, the other re-plans as NOT."""
    service = engine.admission.service
    check, barrier, first_plans = service.check, asyncio.Barrier(2), []

    async def plan_together(*args: Any, **kwargs: Any) -> Any:
        verdict = await check(*args, **kwargs)
        if len(first_plans) < 2:
            first_plans.append(verdict.outcome.verdict.decision)
            await barrier.wait()
        return verdict

    monkeypatch.setattr(service, "check", plan_together)
    results = await asyncio.gather(admit(engine), admit(engine))
    assert first_plans == ["ADD", "ADD"]
    assert sorted(r.decision for r in results) == ["ADD", "NOT"]
    assert (await counts(engine)) == (1, 2)


async def test_another_process_sees_admitted_and_superseded_runs(make_engine: EngineFactory) -> None:
    writer, reader = await make_engine(), await make_engine()
    assert await reader.admission.search(T, "Generate schema") == []
    failed = await admit(writer, outcome="failure")
    assert [h.run.id for h in await reader.admission.search(T, "Generate schema")] == [failed.run_id]
    better = await admit(writer)
    assert [h.run.id for h in await reader.admission.search(T, "Generate schema")] == [better.run_id]
    assert len(reader.admission.index) == (0 if reader.index_backend == "pgvector" else 1)  # held in-process


async def test_an_admitted_run_is_indexed_off_the_event_loop_and_found_by_the_next_search(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    in_process_only(engine)
    await admit(engine, task="Translate the onboarding guide into French")  # the index is loaded from here on
    partitions = engine.admission.index._index
    upsert, threads = partitions.upsert, []

    def recording(*args: Any, **kwargs: Any) -> None:
        threads.append(threading.current_thread())
        upsert(*args, **kwargs)

    monkeypatch.setattr(partitions, "upsert", recording)
    added = await admit(engine)
    assert [h.run.id for h in await engine.admission.search(T, "Generate schema", k=1)] == [added.run_id]
    assert threads and all(t is not threading.main_thread() for t in threads)


async def test_the_index_size_counts_runs_held_until_the_next_search(engine: Engine) -> None:
    """Issue 52: ``/healthz``'s ``runs_index.size`` trailed the runs this process had just admitted
    (held for exact comparison until the next search); a search finds them, so they count."""
    in_process_only(engine)
    await engine.admission.search(T, "anything")  # loaded: later admissions are held
    failed = await admit(engine, outcome="failure")
    assert len(engine.admission.index) == engine.admission.indexed()[0] == 1
    better = await admit(engine)  # REPLACE: the failed run leaves, the better one comes in
    assert better.decision == "REPLACE" and failed.run_id != better.run_id
    assert len(engine.admission.index) == 1
    await admit(engine, task="Translate the onboarding guide into French")
    assert len(engine.admission.index) == 2
    await engine.admission.search(T, "Generate schema")  # handed to the worker: the same count after
    await engine.admission.index._worker.settle()
    assert len(engine.admission.index) == 2


async def test_a_change_the_index_worker_failed_to_apply_is_applied_from_the_log(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The database is the record: an insertion lost on the worker thread is replayed by the next sync.
    Here both fail there: the first run's (handed to the worker by the second admission's search)
    and the second's (by the first search below); each is found all the same."""
    in_process_only(engine)
    first = await admit(engine, task="Translate the onboarding guide into French")
    partitions = engine.admission.index._index
    upsert = partitions.upsert

    def failing_on_the_worker(*args: Any, **kwargs: Any) -> None:
        if threading.current_thread() is not threading.main_thread():
            raise MemoryError("no room for the graph")
        upsert(*args, **kwargs)

    monkeypatch.setattr(partitions, "upsert", failing_on_the_worker)
    added = await admit(engine)
    for query, run in (("Generate schema", added), ("Translate the onboarding guide", first)):
        hits = await engine.admission.search(T, query, k=1)
        assert [h.run.id for h in hits] == [run.run_id]
    assert engine.admission.index._worker.failed == 2 and "no room for the graph" in caplog.text
    assert len(engine.admission.index) == 2  # both in the graph now, replayed on the event loop's thread


async def test_a_twin_gone_before_a_replan_gets_the_run_embedded_after_all(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The re-send was not embedded (its twin was stored); if the twin vanishes (rows removed by hand)
    and the first plan meets a concurrent change, the re-plan embeds the run and adds it."""
    first = await admit(engine, steps=["once"])
    service = engine.admission.service
    check, apply, attempts = service.check, service._parts.executor.apply, []

    async def twin_vanishes(*args: Any, **kwargs: Any) -> Any:
        verdict = await check(*args, **kwargs)
        attempts.append(verdict.outcome.verdict.decision)
        if len(attempts) == 1:  # before the effects' transaction: the twin goes, then the plan is stale
            async with engine.database.transaction() as conn:
                await conn.execute(admission_runs.delete().where(admission_runs.c.id == first.run_id))
        return verdict

    async def stale_once(*args: Any, **kwargs: Any) -> Any:
        if len(attempts) == 1:
            raise StalePlan("changed meanwhile")
        return await apply(*args, **kwargs)

    monkeypatch.setattr(service, "check", twin_vanishes)
    monkeypatch.setattr(service._parts.executor, "apply", stale_once)
    again = await admit(engine, steps=["once"])
    assert attempts == ["NOT", "ADD"]
    assert (again.decision, again.stored, again.summary_source) == ("ADD", True, "extractive")
    assert [h.run.id for h in await engine.admission.search(T, again.summary)] == [again.run_id]


async def test_a_committed_run_is_held_and_searched_exactly_until_the_next_search_hands_it_over(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph insertion waits until the next search has run (so it does not hold the index while
    that search waits); meanwhile the held vector is compared exactly, and a held removal hides a
    run the graph still has."""
    in_process_only(engine)
    failed = await admit(engine, outcome="failure")
    index = engine.admission.index
    await engine.admission.search(T, "Generate schema", k=1)  # hands the first run over…
    await index._worker.settle()  # …and it is in the graph
    partitions = index._index
    upsert, inserted = partitions.upsert, []

    def recording(*args: Any, **kwargs: Any) -> None:
        inserted.append(args[2])
        upsert(*args, **kwargs)

    monkeypatch.setattr(partitions, "upsert", recording)
    better = await admit(engine)  # REPLACE: held are the new run's insertion and the old one's removal
    assert better.decision == "REPLACE"
    await asyncio.sleep(0.05)
    assert inserted == [] and len(index._unapplied) == 2  # not handed over at commit
    assert partitions.contains(T, "default/", failed.run_id)  # the graph still has the old run…
    hits = await engine.admission.search(T, "Generate schema", k=3)
    assert [h.run.id for h in hits] == [better.run_id]  # …but the search sees the held changes
    await index._worker.settle()
    assert inserted == [[better.run_id]] and len(index._unapplied) == 0
    assert not partitions.contains(T, "default/", failed.run_id)


async def test_the_opposite_task_is_its_own_run_and_search_finds_both(engine: Engine) -> None:
    """Issue 46: "Disable two-factor authentication for the admin account" MERGEd into "Enable …"
    at 0.97, and search then showed only the Disable run. Opposites are two tasks: both stored,
    both canonical, both found."""
    summary = "Opened the security settings of the admin account and changed two-factor authentication."
    enable = await admit(engine, task="Enable two-factor authentication for the admin account", summary=summary)
    disable = await admit(engine, task="Disable two-factor authentication for the admin account", summary=summary)
    assert disable.similar_runs and disable.similar_runs[0].similarity > 0.9  # near-duplicates to the embedder
    assert (disable.decision, disable.rule, disable.stored) == ("ADD", "opposite_task", True)
    assert "enable/disable" in disable.reason
    hits = await engine.admission.search(T, "two-factor authentication for the admin account", collapse=True)
    assert {h.run.id for h in hits} == {enable.run_id, disable.run_id}


async def test_search_leaves_out_what_is_barely_similar_and_answers_best_first(engine: Engine) -> None:
    """Issue 52: a search answered hits down to 0.09 similarity, out of score order."""
    schema = await admit(engine)
    other = await admit(engine, task="Translate the onboarding guide into French", summary="translated it")
    everything = await engine.admission.search(T, "Generate schema", min_similarity=-1.0)
    assert {h.run.id for h in everything} == {schema.run_id, other.run_id}
    assert [h.similarity for h in everything] == sorted((h.similarity for h in everything), reverse=True)
    low = next(h.similarity for h in everything if h.run.id == other.run_id)
    assert low < engine.settings.admission.search_min_similarity  # noise, by the default floor
    assert [h.run.id for h in await engine.admission.search(T, "Generate schema")] == [schema.run_id]


async def test_a_bare_re_report_does_not_displace_the_detailed_run_it_repeats(
    engine: Engine, clock: FixedClock
) -> None:
    """Issue 52: in a merge group, a sparse re-report (no steps, no artifacts) became canonical over the
    detailed run: newer > older holds between runs that say as much, not over one that says more."""
    detailed = await admit(
        engine,
        steps=["read orders.csv", "inferred the column types", "wrote schema.sql"],
        references=["orders.csv"],
        artifacts=["schema.sql"],
    )
    clock.advance(seconds=1)
    other = await admit(
        engine, references=["customers.csv"], artifacts=["customers.sql"], summary="wrote customers.sql"
    )
    assert other.decision == "MERGE"
    clock.advance(seconds=1)
    bare = await admit(engine, references=["notes.md"])  # the same task again, saying almost nothing
    if bare.decision != "MERGE":
        pytest.skip(f"the judge decided {bare.decision} ({bare.rule}): nothing joined the group")
    canonical = [r for r in (detailed, other, bare) if (await engine.admission.run(T, r.run_id)).canonical]
    assert [r.run_id for r in canonical] != [bare.run_id]
    assert len(canonical) == 1
