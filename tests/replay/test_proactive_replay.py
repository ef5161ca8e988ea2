"""Replaying one trust level's score threshold on synthetic proactive cycles whose ground truth is
known, and a tenant's own threshold holding for the next cycle (issue 25)."""

from __future__ import annotations

import random
from datetime import timedelta

from sqlalchemy import insert, update

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.proactive.models import Candidate
from phronesis.proactive.scoring import Weights, score_candidates, weigh
from phronesis.proactive.settings import ProactiveSettings
from phronesis.replay import ReplayIn, ReplayReport, replay_proactive
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records, proactive_sends, proactive_users
from phronesis.testing import FixedClock
from tests.replay.test_executive_replay import NOW

LOGGED = 7.0
RATE = 0.4
SETTINGS = ProactiveSettings(exploration_rate=RATE, exploration_band=1.5)
World = list[list[tuple[float, float]]]
"""Each cycle's candidates: (composite score, the true chance the user engages with it)."""
Cycles = list[list[tuple[Candidate, float]]]
"""Each cycle's candidates, with the true chance the user engages with each."""


def _world(n: int, seed: int = 11) -> World:
    rng = random.Random(seed)
    cycles = []
    for _ in range(rng.randrange(0, 1) + n):
        scores = sorted((round(rng.uniform(4.0, 9.0), 2) for _ in range(rng.randint(1, 3))), reverse=True)
        cycles.append([(s, 0.1 + 0.08 * s) for s in scores])  # better scores, more engagement
    return cycles


def _candidate(i: int, relevance: float, timing: float, urgency: float) -> Candidate:
    return Candidate(
        message=f"message {i} at {relevance}/{timing}/{urgency}",
        category="deadline_warning" if i == 0 else "nudge",
        relevance=relevance,
        timing=timing,
        urgency=urgency,
        action_type="text",
    )


def _cycles(world: World) -> Cycles:
    """Candidates whose composite score is the world's (all three parts equal it)."""
    return [[(_candidate(i, s, s, s), chance) for i, (s, chance) in enumerate(cycle)] for cycle in world]


def _chosen_by(threshold: float, cycle: list[tuple[float, float]]) -> int | None:
    return next((i for i, (s, _) in enumerate(cycle) if s >= threshold), None)


def _true_engagement(world: World, threshold: float) -> float:
    """The engagement rate of the messages the deterministic rule at ``threshold`` sends."""
    chances = [cycle[i][1] for cycle in world if (i := _chosen_by(threshold, cycle)) is not None]
    return sum(chances) / len(chances)


async def add_user(database: Database, user: str = "u") -> None:
    """The user the logged cycles and sends are of."""
    async with database.transaction() as conn:
        await conn.execute(
            insert(proactive_users).values(
                tenant="t",
                id=user,
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


async def add_send(
    database: Database, send_id: str, *, category: str, score: float, probability: float, outcome: str
) -> None:
    """A send of user ``u`` as the cycle claims one, with its feedback in."""
    async with database.transaction() as conn:
        await conn.execute(
            insert(proactive_sends).values(
                tenant="t",
                id=send_id,
                user_id="u",
                cycle_key=f"k-{send_id}",
                message=f"message of {send_id}",
                category=category,
                trigger_signals=[],
                action_type="text",
                channel="console",
                score=score,
                probability=probability,
                delivery_status="sent",
                sent_at=NOW - timedelta(days=1),
                outcome=outcome,
            )  # fmt: skip
        )


async def _log(database: Database, world: Cycles, *, seed: int = 2, rate: float = RATE) -> None:
    """Logged as the cycle logs: the real scoring (exploration included), every candidate with
    its verdict and chance, the send with its feedback."""
    rng = random.Random(seed)
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    settings = SETTINGS.model_copy(update={"exploration_rate": rate})
    await add_user(database)
    for n, cycle in enumerate(world):
        scored = score_candidates(
            [candidate for candidate, _ in cycle],
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
            await add_send(
                database,
                send_id,
                category=chosen.candidate.category,
                score=chosen.score,
                probability=probability,
                outcome="engaged" if engaged else "ignored",
            )
        await records.write(
            NewDecisionRecord(
                id=f"p{n}",
                tenant="t",
                kind="proactive",
                subject_id="u",
                strategy="templates",
                path="templates",
                action="sent" if chosen else "silent",
                inputs={"trust": {"level": "new", "weights": Weights.of(settings).info()}},
                attributes={
                    "threshold": LOGGED,
                    "candidates": [
                        {
                            "category": c.candidate.category,
                            "score": c.score,
                            "verdict": c.verdict,
                            "probability": c.probability,
                            "relevance": c.candidate.relevance,
                            "timing": c.candidate.timing,
                            "urgency": c.candidate.urgency,
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
    await _log(database, _cycles(world))
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
    await _log(database, _cycles(world))
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
    await _log(database, _cycles(world), rate=0.0)
    report = await _replay(database, 8.0)
    assert report.ips is None and report.snips is None and "exploration off" in report.weighting
    # a higher threshold only sends a subset of what was sent: every outcome is known
    assert report.coverage == 1.0
    assert report.sent_replayed == sum(_chosen_by(8.0, c) is not None for c in world)


async def test_another_levels_cycles_are_not_replayed(database: Database) -> None:
    await _log(database, _cycles(_world(50)))
    report = await _replay(database, 6.0, level="deep")
    assert report.decisions == 0 and report.sent_logged == 0


def _weighted_world(n: int, seed: int = 5) -> Cycles:
    """One candidate a cycle, each part 5.5-9 (so its logged composite is in reach: approved, or
    in the exploration band); engagement rises with urgency alone."""
    rng = random.Random(seed)
    parts = [tuple(round(rng.uniform(5.5, 9.0), 2) for _ in range(3)) for _ in range(n)]
    return [[(_candidate(0, *p), 0.1 + 0.08 * p[2])] for p in parts]


async def test_a_weight_is_replayed_by_rescoring_each_candidates_parts(database: Database) -> None:
    """``proactive.weight.urgency`` lowered to 0.1: each candidate rescored from its recorded
    parts with the cycle's other weights, at the cycle's own threshold. Every replayed send was
    in the logging policy's reach, so SNIPS recovers the true engagement of what it sends."""
    world = _weighted_world(1500)
    await _log(database, world)
    weights = Weights.of(SETTINGS).replace("urgency", 0.1)
    sends = [chance for ((c, chance),) in world if weigh(c.relevance, c.timing, c.urgency, weights) >= LOGGED]
    body = ReplayIn(decision_point="proactive", parameter="weight.urgency", value=0.1)
    report = await replay_proactive(database, "t", body, current=0.25, since=NOW - timedelta(days=30))
    assert (report.parameter, report.decisions, report.sent_replayed) == ("weight.urgency", 1500, len(sends))
    assert report.snips is not None and report.snips.coverage == 1.0 and report.snips.interval is not None
    truth = sum(sends) / len(sends)
    assert report.snips.interval[0] <= truth <= report.snips.interval[1], (truth, report.snips)
    same = ReplayIn(decision_point="proactive", parameter="weight.urgency", value=0.25)
    unchanged = await replay_proactive(database, "t", same, current=0.25, since=NOW - timedelta(days=30))
    # the logged weights replayed: only the explored sends differ (the replayed rule does not explore)
    assert {(c.logged.split(":")[0], c.replayed) for c in unchanged.changes} <= {("sent", "silent")}


async def test_cycles_without_their_parts_are_not_rescored(database: Database) -> None:
    """Cycles logged before the parts and weights were kept: a weight's replay leaves them out
    rather than guess their scores; a threshold's replay still reads them."""
    await _log(database, _cycles(_world(40)))
    async with database.transaction() as conn:
        await conn.execute(
            update(decision_records)
            .where(decision_records.c.kind == "proactive")
            .values(inputs={"trust": {"level": "new"}})
        )
    body = ReplayIn(decision_point="proactive", parameter="weight.timing", value=0.5)
    report = await replay_proactive(database, "t", body, current=0.35, since=NOW - timedelta(days=30))
    assert report.decisions == 0 and report.sent_logged == 0
    assert (await _replay(database, 6.0)).decisions == 40
