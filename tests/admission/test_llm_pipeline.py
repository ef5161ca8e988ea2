"""The pipeline with an LLM: it summarises and judges; what it says is validated and recorded."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.embeddings.types import Vectors
from phronesis.engine import Engine
from phronesis.llm.types import LLMRequest
from phronesis.testing import ScriptedLLM
from tests.engines import EngineFactory

SUMMARY = "The agent read orders.csv, inferred the column types and wrote schema.sql."


def llm_judging(answer: str) -> ScriptedLLM:
    def respond(request: LLMRequest) -> str:
        if "SIMILAR EXISTING RUNS" in request.prompt:
            return answer
        return SUMMARY

    return ScriptedLLM(respond, model_name="scripted-judge")


async def engine_with(make_engine: EngineFactory, answer: str, **admission: object) -> Engine:
    engine: Engine = await make_engine(llm=llm_judging(answer), admission=admission)
    return engine


async def test_the_llm_summary_is_embedded_and_its_verdict_executed(make_engine: EngineFactory) -> None:
    engine = await engine_with(make_engine, '{"decision": "MERGE", "target_run_id": 1, "reason": "another approach"}')
    first = await engine.admit_run("Generate schema", outcome="success", steps=["read orders.csv"])
    assert (first.summary, first.summary_source, first.decision) == (SUMMARY, "llm", "ADD")
    second = await engine.admit_run("Generate schema", outcome="success", steps=["read orders.csv twice"])
    assert (second.decision, second.target_run_id, second.judge, second.stage) == (
        "MERGE",
        first.run_id,
        "llm",
        "judge",
    )
    record = await engine.decisions.get("default", second.decision_id)
    assert record.model == "scripted-judge" and record.strategy == "llm"
    assert record.raw_llm_output is not None and json.loads(record.raw_llm_output)["decision"] == "MERGE"
    assert record.prompt is not None and first.run_id not in record.prompt  # candidates by number only
    # what the dashboard counts: the summary's request and the judge's; the first run, its summary's
    assert record.llm_calls == 2
    assert (await engine.decisions.get("default", first.decision_id)).llm_calls == 1


@pytest.mark.parametrize(
    "answer",
    [
        "no json here",
        '{"decision": "REPLACE", "target_run_id": 9, "reason": "invented"}',
        '{"decision": "MERGE", "reason": "no target"}',
    ],
)
async def test_an_unusable_verdict_takes_the_fail_safe_add_and_records_why(
    make_engine: EngineFactory, answer: str
) -> None:
    engine = await engine_with(make_engine, answer)
    first = await engine.admit_run("Generate schema", outcome="failure", steps=["a"])
    second = await engine.admit_run("Generate schema", outcome="success", steps=["b"])
    assert (second.decision, second.stage, second.target_run_id) == ("ADD", "fail_safe", None)
    assert (await engine.admission.run("default", first.run_id)).status == "active"  # nothing destructive
    record = await engine.decisions.get("default", second.decision_id)
    assert record.path == "fail_safe" and record.raw_llm_output == answer
    assert record.attributes["fail_safe"] and record.llm_calls == 2  # asked, even if its answer was unusable


async def test_the_fail_safe_can_be_the_rule_judge(make_engine: EngineFactory) -> None:
    engine = await engine_with(make_engine, "not json", fail_safe="rules")
    first = await engine.admit_run("Generate schema", outcome="failure", steps=["a"])
    second = await engine.admit_run("Generate schema", outcome="success", steps=["b"])
    assert (second.decision, second.target_run_id, second.stage) == ("REPLACE", first.run_id, "fail_safe")
    assert second.rule == "not_json->better_outcome"


async def test_a_replace_of_another_tasks_run_is_refused_by_the_guard(make_engine: EngineFactory) -> None:
    engine = await engine_with(make_engine, '{"decision": "REPLACE", "target_run_id": 1, "reason": "better"}')
    first = await engine.admit_run("Generate schema", outcome="failure", summary=SUMMARY)
    second = await engine.admit_run("Generate the database schema", outcome="success", summary=SUMMARY)
    assert (second.decision, second.rule) == ("ADD", "replace_other_task")
    assert (await engine.admission.run("default", first.run_id)).status == "active"


async def test_the_rule_judge_can_be_chosen_with_an_llm_configured(make_engine: EngineFactory) -> None:
    engine = await engine_with(make_engine, "unused", judge="rules", summariser="extractive")
    await engine.admit_run("Generate schema", outcome="failure")
    second = await engine.admit_run("Generate schema", outcome="success")
    assert (second.decision, second.judge, second.summary_source) == ("REPLACE", "rules", "extractive")


async def test_an_exact_resend_costs_no_llm_call_and_no_embedding(
    make_engine: EngineFactory, embedder: HashingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 003: an exact duplicate is NOT "without any LLM" — not even the summary call, and no embedding."""
    llm = llm_judging('{"decision": "NOT", "target_run_id": 1, "reason": "same"}')
    engine: Engine = await make_engine(llm=llm)
    first = await engine.admit_run("Generate schema", outcome="success", steps=["read orders.csv"])
    calls, embedded = len(llm.requests), []
    embed = embedder.embed

    async def counting(texts: Sequence[str]) -> Vectors:
        embedded.extend(texts)
        return await embed(texts)

    monkeypatch.setattr(embedder, "embed", counting)
    again = await engine.admit_run("Generate schema", outcome="success", steps=["read orders.csv"])
    assert (again.decision, again.rule, again.target_run_id) == ("NOT", "exact_duplicate", first.run_id)
    assert (again.summary, again.summary_source) == (SUMMARY, "stored")
    assert len(llm.requests) == calls and embedded == []
    record = await engine.decisions.get("default", again.decision_id)
    assert record.inputs["summary_source"] == "stored" and first.run_id in record.attributes["summary_note"]
