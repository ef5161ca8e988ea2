"""The ``calibrated`` strategy on a real database: implicit outcomes are soft evidence, weighed
by a channel that rated fires teach, in the database every worker reads."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from phronesis.engine import Engine
from phronesis.heuristics.channel import DEFAULT_CHANNEL_PRIOR, Channel, count_observation
from phronesis.storage.database import Database
from phronesis.storage.tables import learning_channel
from phronesis.testing import FixedClock
from tests.engines import EngineFactory, add_heuristic

PRIOR = Channel.prior(DEFAULT_CHANNEL_PRIOR, 20.0)


async def _calibrated(make_engine: EngineFactory) -> Engine:
    engine: Engine = await make_engine(learning={"strategy": "calibrated"})
    return engine


async def _confidence(engine: Engine, heuristic_id: str) -> float:
    return (await engine.heuristics.repository.get("default", heuristic_id)).confidence


async def _channel(database: Database) -> dict[tuple[str, bool], float]:
    c = learning_channel.c
    rows = await database.read(select(c.outcome, c.helped, c.count).where(c.tenant == "default"), {})
    return {(outcome, helped): count for outcome, helped, count in rows}


async def _timeout(engine: Engine, clock: FixedClock) -> None:
    clock.advance(seconds=31)
    await engine.learning.sweep()


async def test_a_timeout_is_soft_evidence_for_success(make_engine: EngineFactory, clock: FixedClock) -> None:
    engine = await _calibrated(make_engine)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.5)
    await engine.record_fire(h.id, event_id="e1", source="home")
    await _timeout(engine, clock)

    share = PRIOR.share("implicit_timeout", 0.5)  # 0.8·0.5 / (0.8·0.5 + 0.3·0.5) ≈ 0.727
    # prior Beta(1, 1); share towards success, the rest towards failure
    assert await _confidence(engine, h.id) == pytest.approx((1 + share) / 3)
    (step,) = (await engine.learning.history("default", h.id)).items
    assert step.source == "implicit_timeout" and step.positive
    assert step.helped_share == pytest.approx(share, abs=1e-6)  # history shows how it counted


async def test_every_ignore_is_weak_evidence_against(make_engine: EngineFactory) -> None:
    """Seed 001 counts only the third consecutive ignore; here each one says a little."""
    engine = await _calibrated(make_engine)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.7)
    await engine.record_fire(h.id, event_id="e1", source="home")
    observed = await engine.observe("the kettle boiled", event_id="e2", source="home", reply_to="e1")
    assert [(s.source, s.effect) for s in observed.signals] == [("implicit_ignored", "updated")]
    assert observed.signals[0].soft  # issue 52: weighed both ways, not said to be plainly "negative"
    after = await _confidence(engine, h.id)
    assert 0.6 < after < 0.7


async def test_rated_fires_teach_the_channel_whichever_comes_first(
    make_engine: EngineFactory, database: Database, clock: FixedClock
) -> None:
    engine = await _calibrated(make_engine)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.7)
    undone = await engine.record_fire(h.id, event_id="e1", source="home")
    await engine.observe("undo that", event_id="e2", source="home")
    await engine.feedback(undone.id, rating="negative")  # outcome first, then the rating
    silent = await engine.record_fire(h.id, event_id="e3", source="garden")
    await engine.feedback(silent.id, rating="positive")  # the rating first, then the outcome
    await _timeout(engine, clock)
    unrated = await engine.record_fire(h.id, event_id="e4", source="porch")
    await _timeout(engine, clock)
    assert unrated.id  # an outcome without a rating teaches nothing

    assert await _channel(database) == {("implicit_undo", False): 1.0, ("implicit_timeout", True): 1.0}

    # last click wins: the silent fire did not help after all
    await engine.feedback(silent.id, rating="negative")
    counts = await _channel(database)
    assert counts[("implicit_timeout", True)] == 0.0 and counts[("implicit_timeout", False)] == 1.0


async def test_what_the_channel_learned_is_what_every_worker_weighs(
    make_engine: EngineFactory, clock: FixedClock
) -> None:
    """Silence that keeps following failures, rated as such, stops counting as success, for a
    second engine on the same database too (another API worker)."""
    teacher = await _calibrated(make_engine)
    h = await add_heuristic(teacher, "it is dark", "turn on the lights", 0.5)
    for i in range(60):
        fire = await teacher.record_fire(h.id, event_id=f"e{i}", source=f"s{i}")
        await teacher.feedback(fire.id, rating="negative")
    await _timeout(teacher, clock)

    worker = await _calibrated(make_engine)
    fresh = await add_heuristic(worker, "it is cold", "turn on the heating", 0.5)
    await worker.record_fire(fresh.id, event_id="x", source="house")
    await _timeout(worker, clock)
    learned = PRIOR.plus([("implicit_timeout", False, 60.0)]).share("implicit_timeout", 0.5)
    assert learned < 0.5 < PRIOR.share("implicit_timeout", 0.5)
    assert await _confidence(worker, fresh.id) == pytest.approx((1 + learned) / 3)


async def test_concurrent_observations_are_all_counted(database: Database) -> None:
    """Every writer bumps the same counter in its own transaction: none is lost (an atomic
    INSERT … ON CONFLICT increment, not a read-modify-write)."""

    async def one() -> None:
        async with database.transaction() as conn:
            await count_observation(conn, "default", [("implicit_timeout", True, 1.0)])
            await asyncio.sleep(0)

    await asyncio.gather(*(one() for _ in range(24)))
    assert await _channel(database) == {("implicit_timeout", True): 24.0}


def test_a_bad_channel_prior_is_a_settings_error() -> None:
    from pydantic import ValidationError

    from phronesis.learning.settings import LearningSettings

    with pytest.raises(ValidationError, match="unknown outcome"):
        LearningSettings(channel_prior={"implicit_lol": (0.5, 0.5)})


async def test_a_rated_fire_s_timeout_adds_nothing_the_rating_did_not_say(
    make_engine: EngineFactory, clock: FixedClock
) -> None:
    """Issue 52: a fire rated 👎 and then silent had its timeout weighed at the heuristic's confidence,
    as if nobody knew whether it helped; the rating says it did not, and counted once already."""
    engine = await _calibrated(make_engine)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.5)
    fire = await engine.record_fire(h.id, event_id="e1", source="home")
    rated = await engine.feedback(fire.id, rating="negative")
    await _timeout(engine, clock)
    assert await _confidence(engine, h.id) == pytest.approx(rated.new_confidence)
    steps = (await engine.learning.history("default", h.id)).items
    assert [step.source for step in steps] == ["user_explicit"]  # the timeout moved nothing


async def test_a_rating_after_a_soft_outcome_takes_the_outcome_back(
    make_engine: EngineFactory, clock: FixedClock
) -> None:
    """Issue 52: a fire's timeout counted ~0.73 for it; rated 👎 afterwards, both had counted (the
    rating on top of a hint it contradicts). The rating is the fire's last word: the soft evidence is
    taken back, and put back if the rating is withdrawn (a neutral score)."""
    engine = await _calibrated(make_engine)
    h = await add_heuristic(engine, "it is dark", "turn on the lights", 0.5)
    fire = await engine.record_fire(h.id, event_id="e1", source="home")
    await _timeout(engine, clock)
    soft = await _confidence(engine, h.id)
    assert soft == pytest.approx((1 + PRIOR.share("implicit_timeout", 0.5)) / 3)

    await engine.feedback(fire.id, rating="negative", idempotency_key="k1")
    rating = (await engine.learning.history("default", h.id)).items[0]
    assert rating.weight is not None and rating.weight > 0
    # prior Beta(1, 1) and the rating alone: nothing of the timeout is left
    assert await _confidence(engine, h.id) == pytest.approx(1 / (2 + rating.weight))
    assert rating.took_back == "implicit_timeout"

    await engine.feedback(fire.id, user_score=2, idempotency_key="k2")  # neutral: the rating is withdrawn
    withdrawn = (await engine.learning.history("default", h.id)).items[0]
    assert withdrawn.put_back == "implicit_timeout"
    assert await _confidence(engine, h.id) == pytest.approx(soft)

    await engine.feedback(fire.id, rating="positive", idempotency_key="k3")  # a new first rating: taken back again
    again = (await engine.learning.history("default", h.id)).items[0]
    assert again.took_back == "implicit_timeout" and again.weight is not None
    assert await _confidence(engine, h.id) == pytest.approx((1 + again.weight) / (2 + again.weight))
