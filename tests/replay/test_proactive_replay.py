"""Replaying one trust level's score threshold on synthetic proactive cycles whose ground truth is
known, and a tenant's own threshold holding for the next cycle (issue 25)."""

from __future__ import annotations

import random
from datetime import timedelta

from sqlalchemy import insert

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.proactive.models import Candidate
from phronesis.proactive.scoring import score_candidates
from phronesis.replay import ReplayIn, ReplayReport, replay_proactive
from phronesis.settings import ProactiveSettings
from phronesis.storage.database import Database
from phronesis.storage.tables import proactive_sends, proactive_users
from phronesis.testing import FixedClock
from tests.replay.test_executive_replay import NOW

LOGGED = 7.0
RATE = 0.4
SETTINGS = ProactiveSettings(exploration_rate=RATE, exploration_band=1.5)
World = list[list[tuple[float, float]]]
"""Each cycle's candidates: (composite score, the true chance the user engages with it)."""


def _world(n: int, seed: int = 11) -> World:
    rng = random.Random(seed)
    cycles = []
    for _ in range(rng.randrange(0, 1) + n):
        scores = sorted((round(rng.uniform(4.0, 9.0), 2) for _ in range(rng.randint(1, 3))), reverse=True)
        cycles.append([(s, 0.1 + 0.08 * s) for s in scores])  # better scores, more engagement
    return cycles


def _candidate(score: float, i: int) -> Candidate:
    """A candidate whose composite score is ``score`` (all three parts equal it)."""
    return Candidate(
        message=f"message {i} at {score}",
        category="deadline_warning" if i == 0 else "nudge",
        relevance=score,
        timing=score,
        urgency=score,
        action_type="text",
    )


def _chosen_by(threshold: float, cycle: list[tuple[float, float]]) -> int | None:
    return next((i for i, (s, _) in enumerate(cycle) if s >= threshold), None)


def _true_engagement(world: World, threshold: float) -> float:
    """The engagement rate of the messages the deterministic rule at ``threshold`` sends."""
    chances = [cycle[i][1] for cycle in world if (i := _chosen_by(threshold, cycle)) is not None]
    return sum(chances) / len(chances)


async def _log(database: Database, world: World, *, seed: int = 2, rate: float = RATE) -> None:
    """Logged as the cycle logs: the real scoring (exploration included), every candidate with
    its verdict and chance, the send with its feedback."""
    rng = random.Random(seed)
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    settings = SETTINGS.model_copy(update={"exploration_rate": rate})
    async with database.transaction() as conn:
        await conn.execute(
            insert(proactive_users).values(
                tenant="t",
                id="u",
                timezone="UTC",
                wake_time="07:00",
                sleep_time="23:00",
                created_at=NOW - timedelta(days=90),
                channel="console",
                ignored_signal_types=[],
                patterns=[],
                learned_ignored_types=[],
                updated_at=NOW,
            )  # fmt: skip
        )
    for n, cycle in enumerate(world):
        scored = score_candidates(
            [_candidate(s, i) for i, (s, _) in enumerate(cycle)],
            threshold=LOGGED,
            recent_messages=(),
            suppressed=frozenset(),
            settings=settings,
            rng=rng,
        )
        chosen = next((c for c in scored if c.sendable), None)
        band = [c for c in scored if c.verdict in ("explored", "deferred") and c.probability < 1.0]
        if chosen is None:
            probability = (1 - rate) ** len(band)
        elif chosen.verdict == "approved":
            probability = 1.0
        else:
            probability = rate * (1 - rate) ** sum(c.score > chosen.score for c in band)
        send_id = f"s{n}" if chosen else None
        if chosen is not None:
            engaged = rng.random() < cycle[int(chosen.candidate.message.split()[1])][1]
            async with database.transaction() as conn:
                await conn.execute(
                    insert(proactive_sends).values(
                        tenant="t",
                        id=send_id,
                        user_id="u",
                        cycle_key=f"k{n}",
                        message=chosen.candidate.message,
                        category=chosen.candidate.category,
                        trigger_signals=[],
                        action_type="text",
                        channel="console",
                        score=chosen.score,
                        probability=probability,
                        delivery_status="sent",
                        sent_at=NOW - timedelta(days=1),
                        outcome="engaged" if engaged else "ignored",
                    )  # fmt: skip
                )
        await records.add(
            NewDecisionRecord(
                id=f"p{n}",
                tenant="t",
                kind="proactive",
                subject_id="u",
                strategy="templates",
                path="templates",
                action="sent" if chosen else "silent",
                inputs={"trust": {"level": "new"}},
                attributes={
                    "threshold": LOGGED,
                    "candidates": [
                        {
                            "category": c.candidate.category,
                            "score": c.score,
                            "verdict": c.verdict,
                            "probability": c.probability,
                        }
                        for c in scored
                    ],
                    "send_id": send_id,
                    "probability": probability,
                },  # fmt: skip
            )
        )


async def _replay(database: Database, value: float, level: str = "new") -> ReplayReport:
    body = ReplayIn(decision_point="proactive", parameter=f"score_threshold.{level}", value=value)
    return await replay_proactive(database, "t", body, current=LOGGED, since=NOW - timedelta(days=30))


async def test_snips_recovers_a_lower_thresholds_true_engagement_within_its_interval(database: Database) -> None:
    """Lowered to 6.0, the rule sends candidates the logging policy sent only when it explored
    them: SNIPS weights those sends by 1 / their chance and recovers the true engagement."""
    world = _world(1500)
    await _log(database, world)
    report = await _replay(database, 6.0)
    truth = _true_engagement(world, 6.0)
    assert report.sent_replayed == sum(_chosen_by(6.0, c) is not None for c in world)
    assert report.sent_replayed is not None and report.sent_logged is not None
    assert report.sent_replayed > report.sent_logged * 0.9  # more cycles send
    assert report.snips is not None and report.snips.interval is not None
    assert report.snips.interval[0] <= truth <= report.snips.interval[1], (truth, report.snips)
    assert report.snips.coverage == 1.0  # every replayed send was in the logging policy's reach
    # the direct estimate sees only the sends that were made: it covers less
    assert report.coverage < 1.0 and report.llm_calls_logged == report.llm_calls_replayed == 0


async def test_a_threshold_below_the_band_is_not_covered_where_nothing_was_explored(database: Database) -> None:
    """At 4.0 the rule sends candidates far below the band, which the logging policy never sent:
    those sends are outside every estimate's coverage, never guessed."""
    world = _world(600)
    await _log(database, world)
    report = await _replay(database, 4.0)
    out_of_reach = sum(
        1
        for c in world
        if (i := _chosen_by(4.0, c)) is not None and c[i][0] < LOGGED - 1.5 and _chosen_by(5.5, c) is None
    )
    assert out_of_reach > 0
    assert report.snips is not None and report.snips.coverage < 1.0
    assert report.snips.decisions < report.sent_replayed  # the sends out of reach are not among them


async def test_without_exploration_only_the_direct_estimate(database: Database) -> None:
    world = _world(300)
    await _log(database, world, rate=0.0)
    report = await _replay(database, 8.0)
    assert report.ips is None and report.snips is None and "exploration off" in report.weighting
    # a higher threshold only sends a subset of what was sent: every outcome is known
    assert report.coverage == 1.0
    assert report.sent_replayed == sum(_chosen_by(8.0, c) is not None for c in world)


async def test_another_levels_cycles_are_not_replayed(database: Database) -> None:
    await _log(database, _world(50))
    report = await _replay(database, 6.0, level="deep")
    assert report.decisions == 0 and report.sent_logged == 0
