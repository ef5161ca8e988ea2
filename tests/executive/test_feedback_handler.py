"""Feedback on executive decisions: durable traces, idempotency, scores, learning from LLM answers."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from phronesis.engine import Engine
from phronesis.exceptions import ConflictError, InvalidInputError, NotFoundError
from phronesis.llm.types import LLMRequest
from phronesis.storage.tables import feedback as feedback_table
from phronesis.testing import FixedClock, ScriptedLLM
from tests.engines import EngineFactory, add_heuristic
from tests.executive.conftest import PREDICTION

SMOKE = "the smoke alarm is beeping in the kitchen"
SMOKE_ACTION = "check the stove and open a window to clear the smoke"
LONG_CONDITION = (
    "the user reports that a smoke alarm in their home is beeping and they are not sure whether there is a fire"
)
LONG_ACTION = "tell the user to check the kitchen and stove first, then open windows and test the alarm battery"


def llm_with_pattern(pattern: object) -> ScriptedLLM:
    def respond(request: LLMRequest) -> str:
        if "Predict the probability" in request.prompt:
            return PREDICTION
        if "reusable rule" in request.prompt:
            return pattern if isinstance(pattern, str) else json.dumps(pattern)
        return LONG_ACTION

    return ScriptedLLM(respond)


async def feedback_rows(engine: Engine) -> int:
    async with engine.database.engine.connect() as conn:
        return int((await conn.execute(select(func.count()).select_from(feedback_table))).scalar_one())


class TestHeuristicPathFeedback:
    async def test_positive_moves_the_fired_heuristic_and_the_decision_outcome(
        self, make_engine: EngineFactory
    ) -> None:
        engine = await make_engine()
        heuristic = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.8)
        decision = await engine.decide_event(SMOKE)

        receipt = await engine.feedback(decision.response_id, rating="positive")

        assert (receipt.effect, receipt.signal, receipt.heuristic_id) == ("updated", "positive", heuristic.id)
        assert receipt.magnitude == 0.8 and receipt.new_confidence is not None
        assert receipt.new_confidence > receipt.old_confidence  # type: ignore[operator]
        history = await engine.heuristics.repository.confidence_history("default", heuristic.id)
        assert [h["source"] for h in history] == ["user_explicit"]
        assert (await engine.decisions.get("default", decision.response_id)).outcome == "positive"
        assert (await engine.heuristics.repository.get("default", heuristic.id)).success_count == 1

    @pytest.mark.parametrize(
        ("fields", "signal", "magnitude", "source"),
        [
            ({"dev_score": 5}, "positive", 0.4, "dev"),
            ({"dev_score": 1}, "negative", 0.4, "dev"),
            ({"user_score": 1}, "negative", 0.8, "user_explicit"),
        ],
    )
    async def test_granular_scores_map_to_signed_magnitudes(
        self,
        make_engine: EngineFactory,
        fields: dict[str, int],
        signal: str,
        magnitude: float,
        source: str,
    ) -> None:
        engine = await make_engine()
        heuristic = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.8)
        decision = await engine.decide_event(SMOKE)

        receipt = await engine.feedback(decision.response_id, **fields)

        assert (receipt.signal, receipt.magnitude) == (signal, pytest.approx(magnitude))
        history = await engine.heuristics.repository.confidence_history("default", heuristic.id)
        assert [(h["source"], h["magnitude"]) for h in history] == [(source, pytest.approx(magnitude))]

    async def test_a_neutral_score_is_recorded_without_moving_anything(self, make_engine: EngineFactory) -> None:
        engine = await make_engine()
        heuristic = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.8)
        decision = await engine.decide_event(SMOKE)

        receipt = await engine.feedback(decision.response_id, user_score=2)

        assert (receipt.signal, receipt.effect) == ("neutral", "recorded")
        assert await engine.heuristics.repository.confidence_history("default", heuristic.id) == []
        assert await feedback_rows(engine) == 1

    async def test_a_locked_heuristic_does_not_move(self, make_engine: EngineFactory) -> None:
        engine = await make_engine()
        await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.8, locked=True)
        decision = await engine.decide_event(SMOKE)

        assert (await engine.feedback(decision.response_id, rating="negative")).effect == "locked"


class TestRefusals:
    async def test_duplicate_feedback_is_a_conflict_and_changes_nothing(self, make_engine: EngineFactory) -> None:
        engine = await make_engine()
        heuristic = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.8)
        decision = await engine.decide_event(SMOKE)
        await engine.feedback(decision.response_id, rating="positive")
        before = await engine.heuristics.repository.get("default", heuristic.id)

        with pytest.raises(ConflictError) as error:
            await engine.feedback(decision.response_id, rating="positive")

        assert error.value.field == "rating"  # the click they sent again (no key of their own)
        assert (await engine.heuristics.repository.get("default", heuristic.id)).confidence == before.confidence
        assert await feedback_rows(engine) == 1
        assert (await engine.decisions.get("default", decision.response_id)).outcome == "positive"

    async def test_distinct_keys_are_distinct_feedback(self, make_engine: EngineFactory) -> None:
        engine = await make_engine()
        await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.8)
        decision = await engine.decide_event(SMOKE)
        await engine.feedback(decision.response_id, rating="positive", idempotency_key="click-1")
        await engine.feedback(decision.response_id, rating="positive", idempotency_key="click-2")
        assert await feedback_rows(engine) == 2

    async def test_an_unknown_response_id_is_not_found(self, make_engine: EngineFactory) -> None:
        engine = await make_engine()
        with pytest.raises(NotFoundError):
            await engine.feedback("no-such-response", rating="positive")
        assert await feedback_rows(engine) == 0

    @pytest.mark.parametrize("rating", ["positive", "negative"])
    async def test_a_rejected_decision_has_nothing_to_rate(self, make_engine: EngineFactory, rating: str) -> None:
        """Issue 46: a positive rating of a rejected decision was recorded and counted in calibration."""
        engine = await make_engine()
        decision = await engine.decide_event("nothing matches this event at all")
        assert decision.decision_path == "rejected"
        with pytest.raises(InvalidInputError) as refused:
            await engine.feedback(decision.response_id, rating=rating)
        assert refused.value.field == "response_id" and "rejected" in str(refused.value)
        assert await feedback_rows(engine) == 0

    @pytest.mark.parametrize("fields", [{}, {"rating": "positive", "dev_score": 3}, {"user_score": 4}])
    async def test_not_exactly_one_valid_score_is_invalid(
        self, make_engine: EngineFactory, fields: dict[str, object]
    ) -> None:
        engine = await make_engine()
        with pytest.raises(InvalidInputError):
            await engine.feedback("any", **fields)

    async def test_feedback_after_the_trace_retention_is_not_found(
        self, make_engine: EngineFactory, clock: FixedClock
    ) -> None:
        engine = await make_engine(executive={"trace_retention_s": 300})
        await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.8)
        decision = await engine.decide_event(SMOKE)
        clock.advance(seconds=301)
        with pytest.raises(NotFoundError):
            await engine.feedback(decision.response_id, rating="positive")


async def test_traces_survive_a_restart(make_engine: EngineFactory) -> None:
    """Feedback reaches a decision made by another engine (another worker, or before a restart)."""
    first = await make_engine()
    heuristic = await add_heuristic(first, SMOKE, SMOKE_ACTION, 0.8)
    decision = await first.decide_event(SMOKE)

    second = await make_engine()
    trace = await second.executive.strategy_for("heuristic_first").get_trace(decision.response_id, tenant="default")
    assert trace is not None and trace.fired_heuristic_id == heuristic.id and trace.context == SMOKE
    assert (await second.feedback(decision.response_id, rating="positive")).effect == "updated"


class TestLearningFromTheLLMPath:
    PATTERN = {"condition": LONG_CONDITION, "action": {"type": "suggest", "message": LONG_ACTION}}

    async def test_positive_feedback_creates_a_learned_heuristic_with_a_consistent_prior(
        self, make_engine: EngineFactory
    ) -> None:
        engine = await make_engine(llm=llm_with_pattern(self.PATTERN))
        decision = await engine.decide_event("my smoke alarm keeps going off, what do I do?", source="home")
        assert decision.decision_path == "llm"

        receipt = await engine.feedback(decision.response_id, rating="positive")

        assert receipt.effect == "created" and receipt.heuristic_id is not None
        learned = await engine.heuristics.repository.get("default", receipt.heuristic_id)
        assert (learned.origin, learned.origin_id, learned.domain) == ("learned", decision.response_id, "home")
        assert learned.confidence == pytest.approx(0.3)
        assert learned.alpha / (learned.alpha + learned.beta) == pytest.approx(0.3)  # ORIGINS §1.8 bug 1
        assert learned.condition_text == LONG_CONDITION and learned.action_text == LONG_ACTION
        matches = await engine.heuristics.match("default", LONG_CONDITION, source="home")
        assert matches and matches[0].heuristic.id == learned.id  # indexed after the commit

    async def test_a_pattern_like_an_existing_heuristic_reinforces_it(self, make_engine: EngineFactory) -> None:
        engine = await make_engine(llm=llm_with_pattern(self.PATTERN))
        existing = await add_heuristic(engine, LONG_CONDITION, LONG_ACTION, 0.4, domain="home")
        decision = await engine.decide_event("my smoke alarm keeps going off, what do I do?", source="home")

        receipt = await engine.feedback(decision.response_id, rating="positive")

        assert (receipt.effect, receipt.heuristic_id) == ("reinforced", existing.id)
        assert await engine.heuristics.repository.count("default") == 1

    async def test_a_pattern_failing_the_quality_gate_creates_nothing(self, make_engine: EngineFactory) -> None:
        short = {"condition": "smoke", "action": {"type": "warn", "message": "open a window"}}
        engine = await make_engine(llm=llm_with_pattern(short))
        decision = await engine.decide_event("smoke!")

        receipt = await engine.feedback(decision.response_id, rating="positive")

        assert receipt.effect == "rejected" and "quality gate" in (receipt.detail or "")
        assert await engine.heuristics.repository.count("default") == 0
        assert await feedback_rows(engine) == 1

    async def test_malformed_extraction_falls_back_to_the_verbatim_event_and_answer(
        self, make_engine: EngineFactory
    ) -> None:
        engine = await make_engine(llm=llm_with_pattern("sure! here is a rule: be careful"))
        decision = await engine.decide_event(LONG_CONDITION)

        receipt = await engine.feedback(decision.response_id, rating="positive")

        assert receipt.effect == "created" and "verbatim" in (receipt.detail or "")
        learned = await engine.heuristics.repository.get("default", receipt.heuristic_id or "")
        assert (learned.condition_text, learned.action_text) == (LONG_CONDITION, LONG_ACTION)

    async def test_negative_feedback_on_an_llm_answer_penalises_no_unseen_heuristic(
        self, make_engine: EngineFactory
    ) -> None:
        engine = await make_engine(llm=llm_with_pattern(self.PATTERN))
        candidate = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.5)
        decision = await engine.decide_event(SMOKE)
        await engine.background.drain()
        assert decision.decision_path == "llm" and decision.matched_heuristic_id == candidate.id

        receipt = await engine.feedback(decision.response_id, rating="negative")

        assert receipt.effect == "recorded"
        sources = [h["source"] for h in await engine.heuristics.repository.confidence_history("default", candidate.id)]
        assert "user_explicit" not in sources


class TestLastClickWins:
    """One rule on every path (issue 21): a decision's latest rating is the one that stands."""

    PATTERN = TestLearningFromTheLLMPath.PATTERN

    async def test_an_llm_decision_teaches_once_and_a_later_negative_takes_the_lesson_back(
        self, make_engine: EngineFactory
    ) -> None:
        engine = await make_engine(llm=llm_with_pattern(self.PATTERN))
        decision = await engine.decide_event("my smoke alarm keeps going off, what do I do?", source="home")
        rid = decision.response_id

        first = await engine.feedback(rid, rating="positive")
        assert first.effect == "created"
        taken_back = await engine.feedback(rid, rating="negative")
        assert (taken_back.effect, taken_back.heuristic_id) == ("withdrawn", first.heuristic_id)
        assert "deleted" in (taken_back.detail or "")
        assert await engine.heuristics.repository.count("default") == 0
        again = await engine.feedback(rid, user_score=3)
        assert again.effect == "created"
        pumped = await engine.feedback(rid, dev_score=5)
        assert (pumped.effect, pumped.heuristic_id) == ("already_learned", again.heuristic_id)
        learned = await engine.heuristics.repository.get("default", again.heuristic_id or "")
        assert learned.confidence == pytest.approx(0.3)  # one decision does not pump its own lesson
        assert await engine.heuristics.repository.count("default") == 1

    async def test_a_withdrawn_reinforcement_is_taken_back_exactly(self, make_engine: EngineFactory) -> None:
        engine = await make_engine(llm=llm_with_pattern(self.PATTERN))
        existing = await add_heuristic(engine, LONG_CONDITION, LONG_ACTION, 0.4, domain="home")
        decision = await engine.decide_event("my smoke alarm keeps going off, what do I do?", source="home")

        assert (await engine.feedback(decision.response_id, rating="positive")).effect == "reinforced"
        assert (await engine.heuristics.repository.get("default", existing.id)).confidence > 0.4
        assert (await engine.feedback(decision.response_id, dev_score=5)).effect == "already_learned"
        withdrawn = await engine.feedback(decision.response_id, user_score=2)  # meh: the lesson no longer stands
        assert withdrawn.effect == "withdrawn" and withdrawn.new_confidence == pytest.approx(0.4)
        assert (await engine.heuristics.repository.get("default", existing.id)).confidence == pytest.approx(0.4)

    async def test_a_learned_heuristic_used_since_is_kept_when_its_lesson_is_withdrawn(
        self, make_engine: EngineFactory
    ) -> None:
        engine = await make_engine(llm=llm_with_pattern(self.PATTERN))
        decision = await engine.decide_event("my smoke alarm keeps going off, what do I do?", source="home")
        created = await engine.feedback(decision.response_id, rating="positive")
        await engine.record_fire(created.heuristic_id or "", event_id="later", source="home")
        withdrawn = await engine.feedback(decision.response_id, rating="negative")
        assert withdrawn.effect == "withdrawn" and "kept" in (withdrawn.detail or "")
        assert await engine.heuristics.repository.count("default") == 1

    @pytest.mark.parametrize("by", ["response", "fire"])
    async def test_outcome_counters_follow_the_standing_rating(self, make_engine: EngineFactory, by: str) -> None:
        """Negative then positive on one fire: one success, no failure, whichever id it is rated by."""
        engine = await make_engine()
        heuristic = await add_heuristic(engine, SMOKE, SMOKE_ACTION, 0.8)
        if by == "response":
            target = (await engine.decide_event(SMOKE, source="home")).response_id
        else:
            target = (await engine.record_fire(heuristic.id, event_id="e1", source="home")).id
        await engine.feedback(target, rating="negative")
        after_negative = await engine.heuristics.repository.get("default", heuristic.id)
        assert (after_negative.success_count, after_negative.failure_count) == (0, 1)
        await engine.feedback(target, rating="positive")
        stood = await engine.heuristics.repository.get("default", heuristic.id)
        assert (stood.success_count, stood.failure_count) == (1, 0)
        assert stood.confidence > 0.8
