"""The LearningModule on a real database (SQLite, and PostgreSQL in CI), for both strategies."""

from __future__ import annotations

from datetime import timedelta

import pytest

from phronesis.engine import Engine
from phronesis.exceptions import ConflictError, InvalidInputError, NotFoundError
from phronesis.heuristics.models import Heuristic
from phronesis.learning.models import Observation
from phronesis.testing import FixedClock
from tests.engines import EngineFactory, add_heuristic

pytestmark = pytest.mark.parametrize("learning_strategy", ["bayesian", "discounted_beta"])


async def _engine(make_engine: EngineFactory, strategy: str, **learning: object) -> Engine:
    engine: Engine = await make_engine(learning={"strategy": strategy, **learning})
    return engine


async def _confidence(engine: Engine, heuristic_id: str) -> float:
    return (await engine.heuristics.repository.get("default", heuristic_id)).confidence


async def test_an_undo_lowers_only_the_fires_of_its_source_in_the_window(
    make_engine: EngineFactory, clock: FixedClock, learning_strategy: str
) -> None:
    engine = await _engine(make_engine, learning_strategy)
    lights = await add_heuristic(engine, "it is dark", "turn on the lights", 0.7)
    heat = await add_heuristic(engine, "it is cold", "turn on the heating", 0.7)
    old = await add_heuristic(engine, "it is late", "dim the lights", 0.7)
    await engine.record_fire(old.id, event_id="e0", source="home")
    clock.advance(seconds=40)  # outside the 30 s window by the time the undo comes
    await engine.record_fire(lights.id, event_id="e1", source="home")
    await engine.record_fire(heat.id, event_id="e2", source="office")

    observed = await engine.observe("no, undo that", event_id="e3", source="home")

    assert observed.undo and [s.heuristic_id for s in observed.signals] == [lights.id]
    assert observed.signals[0].source == "implicit_undo" and observed.signals[0].effect == "updated"
    assert await _confidence(engine, lights.id) < 0.7
    assert await _confidence(engine, heat.id) == pytest.approx(0.7)  # another source
    assert await _confidence(engine, old.id) == pytest.approx(0.7)  # outside the window


async def test_a_negated_undo_is_an_ignore_not_an_undo(make_engine: EngineFactory, learning_strategy: str) -> None:
    engine = await _engine(make_engine, learning_strategy)
    lights = await add_heuristic(engine, "it is dark", "turn on the lights", 0.7)
    await engine.record_fire(lights.id, event_id="e1", source="home")
    observed = await engine.observe("don't undo that", event_id="e2", source="home")
    assert not observed.undo and all(s.signal != "negative" for s in observed.signals)
    assert await _confidence(engine, lights.id) == pytest.approx(0.7)
    named = await engine.observe("don't undo that", event_id="e3", source="home", reply_to="e1")
    assert [(s.source, s.signal, s.effect) for s in named.signals] == [("implicit_ignored", "neutral", "neutral")]


async def _fired_then_observed(
    make_engine: EngineFactory, learning_strategy: str, text: str
) -> tuple[Engine, Heuristic, Observation]:
    """A lights heuristic at 0.7 fired at home, then ``text`` observed from home."""
    engine = await _engine(make_engine, learning_strategy)
    lights = await add_heuristic(engine, "it is dark", "turn on the lights", 0.7)
    await engine.record_fire(lights.id, event_id="e1", source="home")
    return engine, lights, await engine.observe(text, event_id="e2", source="home")


@pytest.mark.parametrize("text", ["thanks, that worked great", "don't undo that, thanks", "perfect", "Thank you!"])
async def test_a_follow_up_that_reads_as_thanks_confirms_the_fires(
    make_engine: EngineFactory, learning_strategy: str, text: str
) -> None:
    """Seed 001's ``user_implicit``: thanks or confirmation is evidence the fire worked, not an ignore."""
    engine, lights, observed = await _fired_then_observed(make_engine, learning_strategy, text)
    assert observed.confirmed and not observed.undo
    assert [(s.source, s.signal, s.effect) for s in observed.signals] == [("user_implicit", "positive", "updated")]
    assert await _confidence(engine, lights.id) > 0.7
    assert (await engine.observe("another event", event_id="e3", source="home")).signals == []  # closed


@pytest.mark.parametrize("text", ["no thanks", "that was not great", "thanks, but undo that"])
async def test_a_refusal_or_an_undo_with_thanks_is_not_a_confirmation(
    make_engine: EngineFactory, learning_strategy: str, text: str
) -> None:
    _, _, observed = await _fired_then_observed(make_engine, learning_strategy, text)
    assert not observed.confirmed
    assert all(s.signal != "positive" for s in observed.signals)


async def test_several_fires_before_one_follow_up_are_one_ignore(
    make_engine: EngineFactory, learning_strategy: str
) -> None:
    """Three quick fires, then one follow-up: one ignore of that heuristic, not three (issue 21)."""
    engine = await _engine(make_engine, learning_strategy)
    lights = await add_heuristic(engine, "it is dark", "turn on the lights", 0.8)
    for n in range(3):
        await engine.record_fire(lights.id, event_id=f"e{n}", source="home")
    # about the action (issue 46: an unrelated event is no ignore), and no undo, thanks or complaint
    about = "someone turned on the lights"
    observed = await engine.observe(about, event_id="f1", source="home")
    assert [(s.source, s.signal) for s in observed.signals] == [("implicit_ignored", "neutral")] * 3
    assert await _confidence(engine, lights.id) == pytest.approx(0.8)
    # the third follow-up that ignores it is the negative one
    for n in (2, 3):
        await engine.record_fire(lights.id, event_id=f"g{n}", source="home")
        observed = await engine.observe(about, event_id=f"f{n}", source="home")
    assert [s.signal for s in observed.signals] == ["negative"]


async def test_three_consecutive_ignores_are_negative_and_reset_the_streak(
    make_engine: EngineFactory, learning_strategy: str
) -> None:
    engine = await _engine(make_engine, learning_strategy)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.7)
    effects = []
    for i in range(4):
        await engine.record_fire(h.id, event_id=f"fire-{i}", source="home")
        observed = await engine.observe("what time is it", event_id=f"next-{i}", source="home", reply_to=f"fire-{i}")
        effects.append(observed.signals[0].signal)
    assert effects == ["neutral", "neutral", "negative", "neutral"]
    assert (await engine.heuristics.repository.get("default", h.id)).ignore_streak == 1
    assert await _confidence(engine, h.id) < 0.7


async def test_the_sweep_gives_one_timeout_positive_per_fire_and_never_after_an_ignore(
    make_engine: EngineFactory, clock: FixedClock, learning_strategy: str
) -> None:
    engine = await _engine(make_engine, learning_strategy)
    quiet = await add_heuristic(engine, "it is dark", "turn on the lights", 0.6)
    ignored = await add_heuristic(engine, "it is cold", "turn on the heating", 0.6)
    await engine.record_fire(quiet.id, event_id="e1", source="home")
    await engine.record_fire(ignored.id, event_id="e2", source="garage")
    await engine.observe("door opened", event_id="e3", source="garage", reply_to="e2")  # ignored's: ignore (neutral)

    assert await engine.learning.sweep() == 0  # nothing is older than the window yet
    clock.advance(seconds=31)
    assert await engine.learning.sweep() == 1
    assert await engine.learning.sweep() == 0  # at most one implicit signal per fire

    assert await _confidence(engine, quiet.id) > 0.6
    assert await _confidence(engine, ignored.id) == pytest.approx(0.6)  # ORIGINS bug 3: no timeout after an ignore
    history = (await engine.learning.history("default", quiet.id)).items
    assert [(h.source, h.positive, h.magnitude) for h in history] == [("implicit_timeout", True, 1.0)]


async def test_implicit_signals_never_reach_heuristics_that_did_not_fire(
    make_engine: EngineFactory, clock: FixedClock, learning_strategy: str
) -> None:
    """ORIGINS bug 2: a heuristic the user never saw (an LLM-path candidate) gets no implicit signal."""
    engine = await _engine(make_engine, learning_strategy)
    shown = await add_heuristic(engine, "smoke in the kitchen", "open the window", 0.5, domain="home")
    decision = await engine.decide_event("smoke in the kitchen", source="home")  # 0.5 < 0.7: no fire
    assert decision.decision_path != "heuristic"
    await engine.observe("undo", event_id="later", source="home")
    clock.advance(seconds=60)
    assert await engine.learning.sweep() == 0
    assert await _confidence(engine, shown.id) == pytest.approx(0.5)


async def test_a_heuristic_path_decision_is_a_fire(
    make_engine: EngineFactory, clock: FixedClock, learning_strategy: str
) -> None:
    engine = await _engine(make_engine, learning_strategy)
    h = await add_heuristic(engine, "smoke in the kitchen", "open the window", 0.9, domain="home")
    decision = await engine.decide_event("smoke in the kitchen", source="home")
    assert decision.decision_path == "heuristic"
    clock.advance(seconds=31)
    assert await engine.learning.sweep() == 1
    assert (await engine.heuristics.repository.get("default", h.id)).fire_count == 1


async def test_the_last_explicit_click_wins(make_engine: EngineFactory, learning_strategy: str) -> None:
    engine = await _engine(make_engine, learning_strategy)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.6)
    fire = await engine.record_fire(h.id, event_id="e1", source="home")

    down = await engine.feedback(fire.id, rating="negative")
    up = await engine.feedback(fire.id, rating="positive")
    with pytest.raises(ConflictError):
        await engine.feedback(fire.id, rating="positive")  # the same click again counts once

    assert down.new_confidence is not None and down.new_confidence < 0.6
    assert up.old_confidence == down.new_confidence
    only_positive = await make_engine(learning={"strategy": learning_strategy})
    twin = await add_heuristic(only_positive, "it is dim", "turn on a lamp", 0.6)
    twin_fire = await only_positive.record_fire(twin.id, event_id="e9", source="home")
    reference = await only_positive.feedback(twin_fire.id, rating="positive")
    assert up.new_confidence == pytest.approx(reference.new_confidence)


async def test_explicit_feedback_resets_the_ignore_streak(make_engine: EngineFactory, learning_strategy: str) -> None:
    engine = await _engine(make_engine, learning_strategy)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.7)
    for i in range(2):
        await engine.record_fire(h.id, event_id=f"f{i}", source="home")
        await engine.observe("hello", event_id=f"n{i}", source="home", reply_to=f"f{i}")
    fire = await engine.record_fire(h.id, event_id="f2", source="home")
    await engine.feedback(fire.id, user_score=3)
    assert (await engine.heuristics.repository.get("default", h.id)).ignore_streak == 0
    observed = await engine.observe("hello", event_id="n2", source="home", reply_to="f2")
    assert observed.signals == []  # a rated fire was acknowledged, not ignored


async def test_bad_input_is_refused_and_writes_nothing(
    make_engine: EngineFactory, clock: FixedClock, learning_strategy: str
) -> None:
    engine = await _engine(make_engine, learning_strategy)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.7)
    with pytest.raises(NotFoundError):
        await engine.record_fire("no-such-heuristic", event_id="e1")
    with pytest.raises(InvalidInputError) as future:
        await engine.record_fire(h.id, event_id="e1", fired_at=clock.now() + timedelta(minutes=5))
    assert future.value.field == "fired_at"
    with pytest.raises(InvalidInputError):
        await engine.observe("", event_id="e2")
    with pytest.raises(NotFoundError):
        await engine.feedback("no-such-fire", rating="positive")
    with pytest.raises(InvalidInputError):
        await engine.feedback(h.id, user_score=7)
    with pytest.raises(NotFoundError):
        await engine.learning.history("default", "no-such-heuristic")
    assert (await engine.heuristics.repository.get("default", h.id)).fire_count == 0


async def test_signals_from_outside_are_applied_and_neutral_ones_skipped(
    make_engine: EngineFactory, learning_strategy: str
) -> None:
    """Seed 001 ``_apply_signal``: a custom detector's signals, NEUTRAL recorded as such and not applied."""
    from phronesis.learning import FeedbackSignal, SignalType

    engine = await _engine(make_engine, learning_strategy)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.5)
    outcomes = await engine.learning.apply(
        "default",
        [
            FeedbackSignal(SignalType.NEUTRAL, h.id, "e1", "user_implicit", 0.0),
            FeedbackSignal(SignalType.POSITIVE, h.id, "e2", "user_implicit", 1.0),
            FeedbackSignal(SignalType.NEGATIVE, "gone", "e3", "user_implicit", 1.0),
        ],
    )
    assert [o.effect for o in outcomes] == ["neutral", "updated", "missing"]
    history = (await engine.learning.history("default", h.id)).items
    assert [(e.source, e.positive, e.event_id) for e in history] == [("user_implicit", True, "e2")]


async def test_a_rating_can_return_to_an_earlier_value(make_engine: EngineFactory, learning_strategy: str) -> None:
    """Last click wins, whichever it is: 👍 👎 👍 ends on 👍 (the third was refused as a duplicate)."""
    engine = await _engine(make_engine, learning_strategy)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.6)
    fire = await engine.record_fire(h.id, event_id="e1", source="home")
    await engine.feedback(fire.id, rating="positive")
    await engine.feedback(fire.id, rating="negative")
    back = await engine.feedback(fire.id, rating="positive")
    with pytest.raises(ConflictError, match="the same click twice"):
        await engine.feedback(fire.id, rating="positive")

    twin_engine = await make_engine(learning={"strategy": learning_strategy})
    twin = await add_heuristic(twin_engine, "it is dim", "turn on a lamp", 0.6)
    reference = await twin_engine.feedback(
        (await twin_engine.record_fire(twin.id, event_id="e9", source="home")).id, rating="positive"
    )
    assert back.new_confidence == pytest.approx(reference.new_confidence)
    stored = await engine.heuristics.repository.get("default", h.id)
    assert (stored.success_count, stored.failure_count) == (1, 0)


async def test_a_neutral_score_takes_the_standing_rating_back(
    make_engine: EngineFactory, learning_strategy: str
) -> None:
    engine = await _engine(make_engine, learning_strategy)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.6)
    fire = await engine.record_fire(h.id, event_id="e1", source="home")
    await engine.feedback(fire.id, rating="positive")
    neutral = await engine.feedback(fire.id, user_score=2)
    assert neutral.effect == "withdrawn" and neutral.new_confidence == pytest.approx(0.6)
    stored = await engine.heuristics.repository.get("default", h.id)
    assert (stored.confidence, stored.success_count, stored.failure_count) == (pytest.approx(0.6), 0, 0)
    again = await engine.feedback(fire.id, rating="negative")  # and a later click still counts
    assert again.new_confidence is not None and again.new_confidence < 0.6


async def _counts(engine: Engine, heuristic_id: str) -> tuple[int, int]:
    h = await engine.heuristics.get("default", heuristic_id)
    return h.success_count, h.failure_count


async def test_an_undo_and_a_thanks_are_counted_until_a_rating_says_otherwise(
    make_engine: EngineFactory, learning_strategy: str
) -> None:
    """Issue 52: success/failure stayed 0/0 after an undo and a "thanks": both confirm what came of
    a fire (a timeout or an ignore confirms nothing). A rating replaces what they said; withdrawn,
    what they said counts again: each fire once, as its last word says."""
    engine = await _engine(make_engine, learning_strategy)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.6)
    undone = await engine.record_fire(h.id, event_id="e1", source="home")
    await engine.observe("no, undo that", event_id="e2", source="home", reply_to="e1")
    assert await _counts(engine, h.id) == (0, 1)
    thanked = await engine.record_fire(h.id, event_id="e3", source="home")
    await engine.observe("thanks, that worked great", event_id="e4", source="home", reply_to="e3")
    assert await _counts(engine, h.id) == (1, 1)

    await engine.feedback(undone.id, rating="positive")  # the user says it was right after all
    assert await _counts(engine, h.id) == (2, 0)
    await engine.feedback(undone.id, user_score=2)  # neutral, withdrawn: the undo is its last word again
    assert await _counts(engine, h.id) == (1, 1)
    await engine.feedback(thanked.id, rating="positive")  # the same as the thanks: counted once
    assert await _counts(engine, h.id) == (1, 1)
