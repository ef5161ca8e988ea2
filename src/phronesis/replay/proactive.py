"""Replaying seed 004's score threshold of one trust level (``proactive.score_threshold.<level>``),
or one weight of its composite (``proactive.weight.<part>``), over logged proactive cycles.

A cycle past the pre-filter scores its candidates (``proactive.scoring``) and sends the best one
at or above the user's trust threshold; with exploration on, one within the band below it may be
sent with a small chance. Each cycle's record keeps every candidate with its composite score,
its verdict and the chance it had (``attributes.candidates``), the threshold, the trust level,
and the send it made (``send_id``); the send's feedback (seed 004 §5) says whether the user
engaged. So for another threshold of that level the replay knows, cycle by cycle, which
candidate would be sent, or that none would: the best candidate at or above the new threshold
that was not a repeat, suppressed or opted out. The replayed policy is that deterministic rule,
without exploration.

A weight is replayed on every level's cycles: each candidate is rescored from the parts its
record keeps (relevance, timing, urgency), with the cycle's own other two weights
(``inputs.trust.weights``), and the same rule is applied at the cycle's own threshold. Cycles
recorded before the parts and weights were kept cannot be rescored and are not replayed.

Success is seed 004's engagement rate: of the messages sent, those engaged (a reply, a button).
The direct estimate covers the replayed sends that are the logged sends, with their feedback in;
a message the replay would send that was never sent has no feedback, and is not covered. With
exploration on, the logging policy sent candidates in the band with a recorded chance: IPS and
SNIPS weight a matching send by 1 / its chance, and cover the replayed sends the logging policy
could have made.

Cycle by cycle: a message the replay adds would count toward the day's cap and the cooldown,
and could have kept a later logged message from going out; one it removes could have let one
through. The replay does not model that sequence, and cycles the pre-filter blocked (cap,
cooldown, quiet hours) kept no candidates to replay.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, select

from phronesis.proactive.models import ENGAGED_OUTCOMES
from phronesis.proactive.scoring import PARTS, Weights, weigh
from phronesis.replay.estimators import Weighted
from phronesis.replay.models import ReplayIn, ReplayReport
from phronesis.replay.recorded import as_json
from phronesis.replay.tally import Tally
from phronesis.storage.database import Database
from phronesis.storage.tables import decision_records, proactive_sends

__all__ = ["Cycle", "Scored", "level_of", "load_proactive", "replay_proactive", "replay_proactive_rows"]

c = decision_records.c
s = proactive_sends.c
BARRED = frozenset({"duplicate", "suppressed", "opted_out"})
"""Verdicts no threshold changes: never sent."""
BAND = frozenset({"explored", "deferred"})


@dataclass(frozen=True, slots=True)
class Scored:
    category: str
    score: float
    verdict: str
    probability: float
    parts: tuple[float, float, float] | None = None
    """Relevance, timing, urgency (None: recorded before they were kept)."""


@dataclass(frozen=True, slots=True)
class Cycle:
    """What a replay needs of one logged cycle."""

    level: str
    candidates: tuple[Scored, ...]
    """As recorded: sendable ones first, best score first."""
    sent: int | None
    """The index of the candidate sent, None for silence."""
    probability: float | None
    """The recorded probability of what the cycle did."""
    reward: float | None
    """1 engaged, 0 ignored or negative; None: silent, or no feedback yet."""
    llm_calls: int
    threshold: float | None = None
    """The user's score threshold at the cycle."""
    weights: Weights | None = None
    """The composite's weights the cycle used (None: recorded before they were kept)."""
    chances: tuple[float, ...] = ()
    """The logging policy's chance of sending each candidate (``_chances``), worked out once."""
    rescorable: bool = False
    """Its candidates' parts and weights were kept: a weight's replay can rescore it."""
    id: str = ""


def _chances(candidates: Sequence[Scored]) -> list[float]:
    """The logging policy's chance of sending each candidate: the best approved one surely; with
    none approved, each band candidate (best first) when it is explored and those ahead are not.
    A band candidate's recorded chance is the exploration rate when explored, 1 - rate when not."""
    approved = [i for i, cand in enumerate(candidates) if cand.verdict == "approved"]
    chances = [0.0] * len(candidates)
    if approved:
        chances[max(approved, key=lambda i: candidates[i].score)] = 1.0
        return chances
    band = sorted(
        (i for i, cand in enumerate(candidates) if cand.verdict in BAND and cand.probability < 1.0),
        key=lambda i: -candidates[i].score,
    )
    stay = 1.0
    for i in band:
        cand = candidates[i]
        rate = cand.probability if cand.verdict == "explored" else 1.0 - cand.probability
        chances[i] = stay * rate
        stay *= 1.0 - rate
    return chances


def _choice(candidates: Sequence[Scored], threshold: float, scores: Sequence[float]) -> int | None:
    """The replayed policy: the best candidate (by ``scores``) at or above ``threshold`` that may be sent."""
    eligible = [i for i, cand in enumerate(candidates) if cand.verdict not in BARRED and scores[i] >= threshold]
    return max(eligible, key=lambda i: scores[i], default=None)


def _parts(cand: dict[str, Any]) -> tuple[float, float, float] | None:
    parts = [cand.get(part) for part in PARTS]
    if any(part is None for part in parts):
        return None
    relevance, timing, urgency = (float(part) for part in parts)  # type: ignore[arg-type]
    return relevance, timing, urgency


def _weights(raw: Any) -> Weights | None:
    parsed = as_json(raw)
    if not isinstance(parsed, dict) or any(parsed.get(part) is None for part in PARTS):
        return None
    return Weights(**{part: float(parsed[part]) for part in PARTS})


def _cycle(
    level: Any,
    raw: Any,
    action: str,
    probability: Any,
    outcome: str | None,
    calls: Any,
    threshold: Any = None,
    weights: Any = None,
    decision_id: str = "",
) -> Cycle:
    parsed = as_json(raw)
    candidates = tuple(
        Scored(
            category=str(cand.get("category", "?")),
            score=float(cand.get("score", 0.0)),
            verdict=str(cand.get("verdict", "")),
            probability=float(cand.get("probability", 1.0)),
            parts=_parts(cand),
        )
        for cand in parsed or ()
        if isinstance(cand, dict)
    )
    sent = None
    if action == "sent":  # the cycle sends the first sendable candidate (``cycle``)
        sent = next((i for i, cand in enumerate(candidates) if cand.verdict in ("approved", "explored")), None)
    reward = None if outcome in (None, "pending") else float(outcome in ENGAGED_OUTCOMES)
    kept = _weights(weights)
    return Cycle(
        level=str(level),
        candidates=candidates,
        sent=sent,
        probability=None if probability is None else float(probability),
        reward=reward if sent is not None else None,
        llm_calls=int(calls or 0),
        threshold=None if threshold is None else float(threshold),
        weights=kept,
        chances=tuple(_chances(candidates)),
        rescorable=kept is not None and threshold is not None and all(c.parts for c in candidates),
        id=decision_id,
    )


async def load_proactive(database: Database, tenant: str, since: datetime, level: str | None) -> list[Cycle]:
    """The cycles of users at ``level`` (None: every level) since ``since`` that scored
    candidates, each with its send's feedback, read once however many values are replayed
    (``replay.tune``)."""
    send_id = c.attributes["send_id"].as_string()
    query = (
        select(
            c.inputs["trust"]["level"].as_string(),
            c.attributes["candidates"],
            c.action,
            c.attributes["probability"].as_float(),
            s.outcome,
            c.llm_calls,
            c.attributes["threshold"].as_float(),
            c.inputs["trust"]["weights"],
            c.id,
        )
        .select_from(decision_records.outerjoin(proactive_sends, and_(s.tenant == c.tenant, s.id == send_id)))
        .where(
            c.tenant == tenant,
            c.kind == "proactive",
            c.created_at >= since,
            c.path != "prefilter",
            *(() if level is None else (c.inputs["trust"]["level"].as_string() == level,)),
        )
    )
    async with database.connect() as conn:
        return [_cycle(*tuple(row)) for row in await conn.execute(query)]


async def replay_proactive(
    database: Database, tenant: str, body: ReplayIn, *, current: float, since: datetime
) -> ReplayReport:
    """``body.value`` of the score threshold or weight ``body.parameter`` names, replayed on the
    cycles it applies to since ``since``."""
    rows = await load_proactive(database, tenant, since, level_of(str(body.parameter)))
    return replay_proactive_rows(rows, body.number, current=current, parameter=str(body.parameter))


def _label(cycle: Cycle, index: int | None) -> str:
    return "silent" if index is None else f"sent: {cycle.candidates[index].category}"


def level_of(parameter: str) -> str | None:
    """The trust level a parameter's replay reads (``score_threshold.<level>``,
    ``daily_cap.<level>``); None: every level (a weight)."""
    kind, _, name = parameter.partition(".")
    return name if kind in ("score_threshold", "daily_cap") else None


def _replayed(row: Cycle, parameter: str, value: float) -> tuple[float, list[float]]:
    """The threshold and the candidates' scores under ``value`` of ``parameter``."""
    kind, _, name = parameter.partition(".")
    if kind == "score_threshold":
        return value, [cand.score for cand in row.candidates]
    assert row.weights is not None and row.threshold is not None
    weights = row.weights.replace(name, value)
    return row.threshold, [weigh(*cand.parts, weights) for cand in row.candidates if cand.parts]


def replay_proactive_rows(rows: Sequence[Cycle], value: float, *, current: float, parameter: str) -> ReplayReport:
    """``value`` of the score threshold or weight ``parameter`` replayed on rows from ``load_proactive``."""
    tally = Tally()
    supported: list[Weighted] = []
    explored = 0
    weight = level_of(parameter) is None
    for row in rows:
        if weight and not row.rescorable:
            continue  # logged before the parts and weights were kept: nothing to rescore
        threshold, scores = _replayed(row, parameter, value)
        replayed = _choice(row.candidates, threshold, scores)
        chances = row.chances
        explored += any(cand.probability < 1.0 for cand in row.candidates)
        change = None if replayed == row.sent else (_label(row, row.sent), _label(row, replayed))
        # candidates are made (by rules or the LLM) before they are scored: the threshold costs no call
        tally.decision(calls_logged=row.llm_calls, calls_replayed=row.llm_calls, change=change, decision_id=row.id)
        tally.sent_logged += row.sent is not None
        tally.sent_replayed += replayed is not None
        if row.sent is not None and row.reward is not None:
            tally.logged(right=bool(row.reward))
        if replayed is None:
            continue  # silence: no message whose engagement counts
        same = replayed == row.sent
        tally.replayed(right=bool(row.reward) if same and row.reward is not None else None)
        if chances[replayed] > 0.0 and (not same or row.reward is not None):
            logged = row.probability or chances[replayed]
            supported.append(Weighted(reward=row.reward or 0.0, weight=1.0 / logged if same else 0.0))
    weighting = (
        f"{explored} of {tally.decisions} cycles had candidates in the exploration band, with recorded "
        "chances; the weighted estimates cover the replayed sends the logging policy could have made; "
        "the replayed rule does not explore (an explored send is silent under any value)"
        if explored
        else "no candidate was in the exploration band (exploration off): only the direct estimate"
    ) + (
        "; replayed cycle by cycle: a send it adds is not counted against the daily cap or the cooldown"
        " (replay the cap on its own)"
    )
    return tally.report(
        decision_point="proactive",
        parameter=parameter,
        current=current,
        value=value,
        weighting=weighting,
        weighted=supported if explored else None,
        over=tally.needed,
    )
