"""The executive as a service: candidates, recording, emergency rule, convergence, A/B, on SQLite and PostgreSQL."""

from __future__ import annotations

import math

import pytest

from phronesis.exceptions import InvalidInputError, LLMServerError, LLMTimeoutError
from phronesis.executive.events import EventRequest
from phronesis.executive.report import build_report
from phronesis.testing import FixedClock, ScriptedLLM
from tests.engines import EngineFactory, add_heuristic
from tests.executive.conftest import answering

SMOKE = "the smoke alarm is beeping in the kitchen"
SMOKE_ACTION = "check the stove and open a window to clear the smoke"


class TestHeuristicPath:
    async def test_a_confident_match_fires_is_recorded_and_counted(self, make_engine: EngineFactory) -> None:
        engine = await make_engine()
        heuristic = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.9, domain="home")

        decision = await engine.decide_event(SMOKE, source="home", event_id="ev-1")

        assert decision.decision_path == "heuristic" and decision.accepted
        assert decision.matched_heuristic_id == heuristic.id and decision.response_text == SMOKE_ACTION
        assert decision.candidates[0].similarity == pytest.approx(1.0, abs=1e-5)
        record = await engine.decisions.get("default", decision.response_id)
        assert (record.kind, record.strategy, record.path, record.subject_id) == (
            "executive",
            "heuristic_first",
            "heuristic",
            "ev-1",
        )
        assert record.inputs["event_text"] == SMOKE and record.attributes["threshold"] == 0.7
        assert (await engine.heuristics.repository.get("default", heuristic.id)).fire_count == 1

    async def test_candidates_are_filtered_to_the_source_and_general_heuristics(
        self, make_engine: EngineFactory
    ) -> None:
        engine = await make_engine()
        work = await add_heuristic(engine, SMOKE, "call the office manager", 0.9, domain="work")
        general = await add_heuristic(engine, SMOKE + " again", "look for the source of the smoke", 0.9)

        decision = await engine.decide_event(SMOKE, source="home")

        ids = [c.heuristic_id for c in decision.candidates]
        assert general.id in ids and work.id not in ids

    async def test_explicit_candidates_replace_memory(self, make_engine: EngineFactory) -> None:
        engine = await make_engine()
        await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.9)
        explicit = {"heuristic_id": "mine", "condition_text": "x", "suggested_action": "my action", "confidence": 0.8}

        decision = await engine.decide_event(SMOKE, candidates=[explicit])

        assert decision.matched_heuristic_id == "mine" and decision.response_text == "my action"
        assert decision.decision_path == "heuristic"

    async def test_no_llm_and_no_confident_match_is_rejected_and_recorded(self, make_engine: EngineFactory) -> None:
        engine = await make_engine()
        await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.4)

        decision = await engine.decide_event(SMOKE)

        assert decision.decision_path == "rejected" and not decision.accepted
        assert decision.reason == "llm_unavailable"
        assert (await engine.decisions.get("default", decision.response_id)).reason == "llm_unavailable"


class TestEmergencyRule:
    async def test_a_threat_with_a_near_certain_heuristic_bypasses_the_strategy(
        self, make_engine: EngineFactory
    ) -> None:
        llm = answering("call someone")
        engine = await make_engine(llm=llm, executive={"decision_strategy": "always_llm"})
        heuristic = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.97)

        decision = await engine.decide_event(SMOKE, salience={"threat": 0.95})

        assert decision.decision_path == "heuristic" and decision.reason == "emergency_fast_path"
        assert decision.matched_heuristic_id == heuristic.id and llm.requests == []
        assert decision.strategy == "always_llm"

    @pytest.mark.parametrize(("threat", "enabled"), [(0.85, True), (0.95, False)])
    async def test_below_the_threat_bar_or_disabled_the_strategy_decides(
        self, make_engine: EngineFactory, threat: float, enabled: bool
    ) -> None:
        engine = await make_engine(
            llm=answering("call someone"),
            executive={"decision_strategy": "always_llm", "emergency_enabled": enabled},
        )
        await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.97)

        decision = await engine.decide_event(SMOKE, salience={"threat": threat})

        assert decision.decision_path == "llm"


class TestLLMPathAndConvergence:
    async def test_an_answer_like_a_shown_candidate_endorses_it_off_the_request_path(
        self, make_engine: EngineFactory
    ) -> None:
        # GLADyS's bootstrapping, opted into: seed 000 F-04's default is no boost (next test)
        engine = await make_engine(llm=answering(SMOKE_ACTION), executive={"endorsement_weight": 0.5})
        heuristic = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.5)

        decision = await engine.decide_event(SMOKE)
        assert decision.decision_path == "llm"
        assert decision.predicted_success == 0.8 and decision.prediction_confidence == 0.8  # F-06 ceiling
        await engine.background.drain()

        record = await engine.decisions.get("default", decision.response_id)
        assert record.attributes["convergence"]["converged_heuristic_id"] == heuristic.id
        assert record.attributes["convergence"]["similarity"] == pytest.approx(1.0, abs=1e-5)
        history = await engine.heuristics.repository.confidence_history("default", heuristic.id)
        assert [(h["source"], round(h["magnitude"], 3)) for h in history] == [("llm_endorsement", 0.5)]
        after = await engine.heuristics.repository.get("default", heuristic.id)
        assert after.confidence > 0.5 and after.fire_count == 0  # the user saw the LLM's answer, not the heuristic

    @pytest.mark.parametrize("weight", [None, 0.0])
    async def test_by_default_and_at_weight_zero_convergence_is_recorded_and_boosts_nothing(
        self, make_engine: EngineFactory, weight: float | None
    ) -> None:
        """Seed 000 F-04: convergence must not boost confidence. Weight 0 is no boost, never 1."""
        executive = {} if weight is None else {"endorsement_weight": weight}
        engine = await make_engine(llm=answering(SMOKE_ACTION), executive=executive)
        heuristic = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.5)
        decision = await engine.decide_event(SMOKE)
        await engine.background.drain()
        record = await engine.decisions.get("default", decision.response_id)
        assert record.attributes["convergence"]["converged_heuristic_id"] == heuristic.id
        assert "endorsement" not in record.attributes
        assert await engine.heuristics.repository.confidence_history("default", heuristic.id) == []
        assert (await engine.heuristics.repository.get("default", heuristic.id)).confidence == pytest.approx(0.5)

    async def test_only_shown_candidates_are_endorsed_and_a_different_answer_is_no_penalty(
        self, make_engine: EngineFactory
    ) -> None:
        engine = await make_engine(llm=answering("ring the fire brigade now"), executive={"max_candidates": 1})
        best = await add_heuristic(engine, SMOKE, "open every window", 0.5)
        unshown = await add_heuristic(engine, SMOKE + " loudly", "ring the fire brigade now", 0.5)

        decision = await engine.decide_event(SMOKE)
        await engine.background.drain()

        assert decision.metadata["shown_candidate_ids"] == [best.id]
        record = await engine.decisions.get("default", decision.response_id)
        assert record.attributes["convergence"]["converged_heuristic_id"] == best.id
        assert "endorsement" not in record.attributes or record.attributes["endorsement"] is None
        for heuristic in (best, unshown):
            assert await engine.heuristics.repository.confidence_history("default", heuristic.id) == []

    @pytest.mark.parametrize(
        ("error", "reason"),
        [
            (LLMServerError("503"), "llm_server_error"),
            (LLMTimeoutError("slow"), "llm_timeout"),
            ("   ", "llm_empty_response"),
        ],
    )
    async def test_an_llm_fault_is_the_seed_fallback_never_accepted(
        self, make_engine: EngineFactory, error: Exception | str, reason: str
    ) -> None:
        """Issue 20: a dead LLM was ``accepted: true`` with an empty answer; now an agent cannot miss it."""
        engine = await make_engine(llm=ScriptedLLM([error]))

        decision = await engine.decide_event(SMOKE)

        assert decision.decision_path == "fallback" and decision.reason == "llm_no_response"
        assert decision.accepted is False and decision.degraded is True and decision.response_text == ""
        assert decision.error is not None and decision.error.startswith(f"{reason}: ")
        record = await engine.decisions.get("default", decision.response_id)
        assert record.attributes["llm_error"] == reason
        assert record.model == "scripted"

    async def test_an_unparseable_prediction_is_neutral_and_says_why(self, make_engine: EngineFactory) -> None:
        engine = await make_engine(llm=answering("open a window", prediction="I think it will go well"))

        decision = await engine.decide_event(SMOKE)

        assert (decision.predicted_success, decision.prediction_confidence) == (0.5, 0.5)
        assert decision.metadata["prediction_fallback"]
        # issue 46: an answer whose prediction failed says so (it was degraded false)
        assert decision.accepted and decision.degraded
        assert decision.error is not None and decision.error.startswith("prediction_")
        record = await engine.decisions.get("default", decision.response_id)
        assert record.raw_llm_output == "open a window" and record.prompt_tokens


class TestBadInput:
    @pytest.mark.parametrize(
        ("fields", "field"),
        [
            ({"text": "   "}, "text"),
            ({"text": "x" * 4001}, "text"),
            ({"text": "ok", "source": "bad source!"}, "source"),
            ({"text": "ok", "salience": {"threat": math.nan}}, "salience"),
            ({"text": "ok", "personality_biases": {"confidence_threshold": 2.0}}, "personality_biases"),
            ({"text": "ok", "urgency": 1.5}, "urgency"),
        ],
    )
    async def test_refused_with_the_field_named_and_nothing_written(
        self, make_engine: EngineFactory, fields: dict[str, object], field: str
    ) -> None:
        engine = await make_engine()
        fields = dict(fields)
        text = str(fields.pop("text"))
        with pytest.raises(InvalidInputError) as error:
            await engine.decide_event(text, **fields)
        assert error.value.field.startswith(field)
        assert await engine.decisions.query("default") == []

    async def test_an_unknown_source_is_refused_when_sources_are_configured(self, make_engine: EngineFactory) -> None:
        engine = await make_engine(executive={"known_sources": "home,work"})
        with pytest.raises(InvalidInputError, match="unknown source"):
            await engine.decide_event("ok", source="garage")
        assert (await engine.decide_event("ok", source="home")).decision_path == "rejected"

    async def test_an_unknown_strategy_is_refused(self, make_engine: EngineFactory) -> None:
        engine = await make_engine()
        with pytest.raises(InvalidInputError, match="unknown strategy"):
            await engine.decide_event("ok", strategy="psychic")


class TestExperiment:
    async def test_a_user_always_gets_the_same_arm_and_both_arms_get_traffic(self, make_engine: EngineFactory) -> None:
        engine = await make_engine(
            executive={"experiment_arms": {"heuristic_first": 1, "always_llm": 1}, "experiment_key": "user"}
        )
        first = [
            (await engine.executive.decide_event("default", EventRequest(text="hello", user_id=f"u{i}"))).strategy
            for i in range(40)
        ]
        again = [
            (await engine.executive.decide_event("default", EventRequest(text="hi", user_id=f"u{i}"))).strategy
            for i in range(40)
        ]
        assert first == again and set(first) == {"heuristic_first", "always_llm"}
        report = build_report(await engine.decisions.summarize("default", kind="executive"))
        assert {r.strategy: r.decisions for r in report} == {
            "always_llm": 2 * first.count("always_llm"),
            "heuristic_first": 2 * first.count("heuristic_first"),
        }


async def test_decision_records_are_purged_after_the_retention(make_engine: EngineFactory, clock: FixedClock) -> None:
    engine = await make_engine(audit={"retention_days": 1})
    old = await engine.decide_event("an old event")
    clock.advance(days=2)
    new = await engine.decide_event("a new event")

    assert await engine.purge_decisions() == 1
    assert [r.id for r in await engine.decisions.query("default")] == [new.response_id]
    assert old.response_id != new.response_id
