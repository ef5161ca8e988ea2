"""Seed 001's ``LearningModule``: fires in, signals out, applied to memory.

- ``record_fire``: a heuristic actually fired (only these get implicit signals — ORIGINS bug 2).
- ``observe``: a new event from a source, a follow-up to that source's open fires within the
  undo window. If it reads as an undo, a NEGATIVE ``implicit_undo``; if it reads as thanks or
  confirmation, a POSITIVE ``user_implicit``. Otherwise they were ignored: the follow-up adds
  one to the ignore streak of each heuristic it ignored, and the strategy decides (seed: 2 →
  NEUTRAL, 3 → NEGATIVE, streak reset after the signal). Whichever it is, one follow-up is one
  signal per heuristic, however many times that heuristic fired before it (with its latest
  fire; the earlier ones close as NEUTRAL): three consecutive ignores are three follow-ups.
- ``sweep``: fires older than the undo window with no implicit signal get the timeout
  POSITIVE ("no news is good news"), on the clock, not on the next event.
- ``explicit``: a rating on a fire; a later click replaces the earlier one (F-11), in the
  heuristic's confidence and in its outcome counters alike, whichever way the rating came
  (by fire id or by the decision's response id).

Each fire gets at most one implicit signal: undo, ignore and timeout close it in the same
transaction that applies the signal (ORIGINS bug 3: GLADyS gave one fire a timeout
positive *and* an ignore negative). An explicit rating resets the ignore streak.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Coroutine, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.clock import Clock
from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import InvalidInputError
from phronesis.feedback.models import Feedback
from phronesis.heuristics.channel import (
    DEFAULT_CHANNEL_PRIOR,
    DEFAULT_CHANNEL_PRIOR_STRENGTH,
    OUTCOMES,
    Channel,
    as_counts,
    count_observation,
    counts_query,
)
from phronesis.heuristics.evidence_writer import EvidenceItem, Retraction
from phronesis.heuristics.models import ConfidenceUpdate
from phronesis.heuristics.repository import HeuristicRepository
from phronesis.learning.fires import CALLER, FireRepository, StoredFire
from phronesis.learning.lessons import Lesson, LessonTeacher
from phronesis.learning.models import (
    ChannelOutcome,
    ChannelReport,
    FireRequest,
    HistoryEntry,
    Observation,
    ObservedEvent,
    SignalOutcome,
)
from phronesis.learning.types import EXPLICIT_SOURCES, FeedbackSignal, FireRecord, LearningStrategy, SignalType
from phronesis.pages import Page
from phronesis.storage.database import Database
from phronesis.storage.point_transaction import PointTransaction

__all__ = ["LearningModule"]


_PLAIN_LESSONS = {
    "implicit_timeout": ("no_news", "no undo or complaint within the undo window: no news is good news"),
    "implicit_ignored": ("ignored", "the events that followed it, about the same thing, did not take it up"),
}
"""Implicit signals that say nothing about where the heuristic applies: they move its confidence only."""


_GENERIC = frozenset(
    {"about", "after", "again", "also", "back", "been", "before", "being", "could", "does", "doing", "done"}
    | {"from", "have", "here", "into", "just", "make", "more", "need", "only", "over", "please", "some"}
    | {"than", "that", "them", "then", "they", "this", "tell", "there", "these", "user", "very", "want"}
    | {"were", "what", "when", "where", "which", "will", "with", "would", "your"}
)


@lru_cache(maxsize=65_536)
def content_words(text: str) -> frozenset[str]:
    """The words of four letters or more that say what a text is about (not "please", "user", "that")."""
    return frozenset(w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in _GENERIC)


RECENT_FIRES = 8
"""Open fires of a source a follow-up is compared with, the latest first: a source firing many times
a second does not make each of its events cost more (unbounded: 17 ms a decide on one source)."""


def _latest_event(fires: Sequence[StoredFire], deictic: bool) -> list[StoredFire]:
    """What "undo that" or "thanks" points at (``fires`` oldest first): the heuristics that fired for
    the latest event (and any fired in the same instant: no order tells them apart), with their
    earlier open fires, which close as neutral (one answer is one signal per heuristic). None when
    the event named what it answers (``reply_to``) and it is not among them."""
    if not deictic or not fires:
        return []
    latest = fires[-1]
    heuristics = {f.heuristic_id for f in fires if f.event_id == latest.event_id or f.fired_at == latest.fired_at}
    return [f for f in fires if f.heuristic_id in heuristics]


CONFIRMING = frozenset({"implicit_undo", "user_implicit"})
"""The implicit outcomes that confirm what came of a fire (an undo; a thanks or a complaint); a
timeout or an ignore is silence, which confirms nothing."""


def implicit_key(fire_id: str) -> str:
    """One implicit signal per fire: every implicit channel shares this key."""
    return f"fire:{fire_id}:implicit"


class LearningModule:
    def __init__(
        self,
        database: Database,
        heuristics: HeuristicRepository,
        strategy: LearningStrategy,
        clock: Clock,
        *,
        max_clock_skew_s: float = 5.0,
        lessons: LessonTeacher | None = None,
        embedder: Embedder | None = None,
        related_similarity: float = 0.5,
        implicit_signals: bool = True,
    ) -> None:
        self.database = database
        self.heuristics = heuristics
        self.strategy = strategy
        self.clock = clock
        self.fires = FireRepository()
        self._skew = timedelta(seconds=max_clock_skew_s)
        self.lessons = lessons
        """What tells a wrong match from a wrong action; None: every negative lowers the confidence."""
        self._embedder = embedder
        """Embeds a fire's event text when the caller sends it without a vector (the API), and a
        follow-up, to find the fires it is about; None: every open fire of its source, as seed 001."""
        self.related_similarity = related_similarity
        self.implicit_signals = implicit_signals
        """False: the caller sends each fire's implicit signals itself (``learning.implicit_signals``), so
        fires are closed to ours and a decision takes over the caller's record of the same fire."""

    @property
    def window(self) -> timedelta:
        return timedelta(seconds=self.strategy.undo_window_sec)

    def _when(self, field: str, value: datetime | None) -> datetime:
        now = self.clock.now()
        if value is None:
            return now
        if value > now + self._skew:
            raise InvalidInputError(field, "must not be in the future")
        return value

    # ------------------------------------------------------------------ fires

    async def record_fire(
        self,
        tenant: str,
        heuristic_id: str,
        request: FireRequest,
        *,
        transaction: PointTransaction | None = None,
        missing_ok: bool = False,
        event_vector: Vectors | None = None,
        probation_of: str | None = None,
        episodic_event_id: str | None = None,
    ) -> FireRecord | None:
        """Count the fire and remember it for implicit signals. Unknown heuristic: 404, or None if ``missing_ok``.

        ``transaction``: the decision's own, so the fire commits with its record (two
        hops to SQLite's writer lane for record, count and fire, rather than the dozen an async
        connection takes). The event's text is kept with its vector (``event_vector``, or embedded here
        before any transaction) for the lessons of its outcome."""
        fired_at = self._when("fired_at", request.fired_at)
        if request.event_text is not None and event_vector is None and self._embedder is not None:
            event_vector = (await self._embedder.embed([request.event_text]))[0]
        async with self.database.point_joined(transaction) as tx:
            if not self.implicit_signals and request.response_id is not None:
                adopted = await self.fires.adopt(
                    tx,
                    tenant,
                    heuristic_id,
                    event_id=request.event_id,
                    response_id=request.response_id,
                    event_text=request.event_text,
                    event_vector=event_vector if request.event_text is not None else None,
                )
                if adopted is not None:  # the caller recorded it first: counted then
                    return adopted
            if not await self.heuristics.record_fire(tenant, heuristic_id, transaction=tx, missing_ok=missing_ok):
                return None
            return await self.fires.add(
                tx,
                tenant,
                heuristic_id,
                event_id=request.event_id,
                source=request.source,
                fired_at=fired_at,
                response_id=request.response_id,
                event_text=request.event_text,
                event_vector=event_vector if request.event_text is not None else None,
                probation_of=probation_of,
                caller_learns=not self.implicit_signals,
                episodic_event_id=episodic_event_id,
            )

    # ------------------------------------------------------------------ implicit

    async def observe(
        self,
        tenant: str,
        event: ObservedEvent,
        *,
        recurring: frozenset[str] = frozenset(),
        vector: Vectors | None = None,
        later: Callable[[Coroutine[Any, Any, Any], str], bool] | None = None,
    ) -> Observation:
        """``recurring``: heuristics the event itself matches (a decided event's candidates). The same
        situation again is no answer to their earlier fires: it neither ignores nor closes them.
        ``vector``: the event's embedding where the caller has it (a decided event). ``later``: where
        ignores may be applied after the caller answers (a decided event: an ignore changes nothing in
        its decision, and its write was most of what observing cost a one-source stream).

        An event answers only the fires it relates to (``_related``): a busy source's
        unrelated events are neither ignores nor work, and only the ``RECENT_FIRES`` latest open fires
        of the source are looked at, whatever its rate."""
        at = self._when("occurred_at", event.occurred_at)
        since = at - self.window
        recent = await self.fires.latest_open_from_source(self.database, tenant, event.source, since, at, RECENT_FIRES)
        # the event that caused a fire does not undo or ignore it
        actions = {fire.id: action for fire, action in recent}
        fires = sorted((f for f, _ in recent if f.event_id != event.event_id), key=lambda f: (f.fired_at, f.id))
        if not fires:
            return Observation(event_id=event.event_id, undo=False, signals=[])
        related = await self._related(event, vector, fires, actions)
        # an undo, thanks or complaint about none of them answers the latest: "undo that"
        replied = [f for f in fires if f.id in related] or _latest_event(fires, event.reply_to is None)
        answered: list[FireRecord] = list(replied)
        undo = self.strategy.interpret_event_for_undo(event.text, answered)
        confirmed = [] if undo else self.strategy.interpret_event_for_confirmation(event.text, answered)
        ignored = [f for f in fires if f.id in related and f.heuristic_id not in recurring]
        seen = len(fires)
        if not (undo or confirmed or ignored):
            return Observation(event_id=event.event_id, undo=False, signals=[], open_fires=seen)
        only_ignores = not (undo or confirmed)
        if (
            only_ignores
            and later is not None
            and later(self._ignore_apart(tenant, ignored, at), f"ignores:{event.event_id}")
        ):
            return Observation(
                event_id=event.event_id, undo=False, signals=[], open_fires=seen, ignored_later=len(ignored)
            )
        async with self.database.transaction() as conn:
            if undo:
                source = undo[0].source  # implicit_undo, or implicit_complaint
                outcomes = await self._answered(conn, tenant, replied, undo, source, at)
                undone = source == "implicit_undo"
                return Observation(
                    event_id=event.event_id, undo=undone, complaint=not undone, signals=outcomes, open_fires=seen
                )
            if confirmed:
                outcomes = await self._answered(conn, tenant, replied, confirmed, "user_implicit", at)
                return Observation(
                    event_id=event.event_id, undo=False, confirmed=True, signals=outcomes, open_fires=seen
                )
            ignores = await self._ignored(conn, tenant, ignored, at)
            return Observation(event_id=event.event_id, undo=False, signals=ignores, open_fires=seen)

    async def _ignore_apart(self, tenant: str, fires: Sequence[StoredFire], at: datetime) -> None:
        async with self.database.transaction() as conn:
            await self._ignored(conn, tenant, fires, at)

    async def _related(
        self, event: ObservedEvent, vector: Vectors | None, fires: Sequence[StoredFire], actions: dict[str, str]
    ) -> set[str]:
        """The fires ``event`` is about: the one it names (``reply_to``), else those whose event it is
        at least ``related_similarity`` similar to, or whose action it speaks of (a word of it: "the
        porch lights are still off" after "turn on the porch lights"). No model call: the fires keep
        their event's vector, and the event's own is the decision's (or one embedding)."""
        if event.reply_to is not None:
            named = event.reply_to
            return {f.id for f in fires if named in (f.id, f.event_id, f.response_id)}
        if self._embedder is None:
            return {f.id for f in fires}  # nothing to compare with: every open fire, as seed 001 had it
        if vector is None:
            vector = (await self._embedder.embed([event.text]))[0]
        said = content_words(event.text)
        related: set[str] = set()
        for fire in fires:
            near = fire.event_vector is not None and len(fire.event_vector) == len(vector)
            if said & content_words(actions.get(fire.id, "")) or (
                near and float(fire.event_vector @ vector) >= self.related_similarity  # type: ignore[operator]
            ):
                related.add(fire.id)
        return related

    async def _answered(
        self,
        conn: AsyncConnection,
        tenant: str,
        fires: Sequence[StoredFire],
        signals: Sequence[FeedbackSignal],
        source: str,
        at: datetime,
    ) -> list[SignalOutcome]:
        """The follow-up answered these fires (undo, thanks): all closed, the ignore streaks of their
        heuristics broken. One answer is one signal per heuristic, as one follow-up is one ignore:
        it goes with the heuristic's latest fire, its earlier fires get a NEUTRAL (one "undo" after
        three quick fires is one undo, not three)."""
        by_fire = {fire.id: fire for fire in fires}
        closed = await self._close(conn, tenant, fires, source, at)
        latest = _latest_per_heuristic(fires, closed)
        applied: list[FeedbackSignal] = []
        outcomes: list[SignalOutcome] = []
        for signal in signals:
            fire = by_fire.get(str(signal.metadata.get("fire_id")))
            if fire is None or fire.id not in closed:
                continue
            if latest[fire.heuristic_id] is fire:
                applied.append(signal)
            else:
                outcomes.append(_outcome(_neutral(fire, source), fire, "neutral"))
        outcomes.extend(
            await self._apply(conn, tenant, applied, [by_fire[str(s.metadata["fire_id"])] for s in applied])
        )
        await self.fires.reset_ignore_streak(conn, tenant, sorted({s.heuristic_id for s in applied}))
        return outcomes

    async def _ignored(
        self, conn: AsyncConnection, tenant: str, fires: Sequence[StoredFire], at: datetime
    ) -> list[SignalOutcome]:
        """Seed 001: an unacknowledged fire followed by another event from its source was ignored.
        One follow-up is one ignore per heuristic: its streak moves once, and the signal goes with
        the heuristic's latest fire; its earlier fires are closed as ignored with a NEUTRAL."""
        candidates = [fire for fire in fires if fire.explicit_source is None]  # acknowledged fires are not ignored
        closed = await self._close(conn, tenant, candidates, "implicit_ignored", at)
        latest = _latest_per_heuristic(candidates, closed)
        outcomes: list[SignalOutcome] = []
        for fire in candidates:
            if fire.id not in closed:
                continue
            if latest[fire.heuristic_id] is not fire:
                outcomes.append(_outcome(_neutral(fire, "implicit_ignored"), fire, "neutral"))
                continue
            streak = await self.fires.bump_ignore_streak(conn, tenant, fire.heuristic_id)
            signal = replace(self.strategy.interpret_ignore(fire.heuristic_id, streak), event_id=fire.event_id)
            outcomes.extend(await self._apply(conn, tenant, [signal], [fire]))
            if signal.signal_type is not SignalType.NEUTRAL:
                await self.fires.reset_ignore_streak(conn, tenant, [fire.heuristic_id])
        return outcomes

    async def _close(
        self, conn: AsyncConnection, tenant: str, fires: Sequence[StoredFire], source: str, at: datetime
    ) -> dict[str, StoredFire]:
        """Give ``fires`` their implicit outcome; those already rated are one observation each for the
        channel (``heuristics.channel``), whether the outcome is applied or closes them as NEUTRAL.
        Their heuristics are locked first: one order (heuristic, fire, channel) for every writer."""
        await self.heuristics.lock(tenant, [fire.heuristic_id for fire in fires], connection=conn)
        closed = await self.fires.close(conn, [fire.id for fire in fires], source, at)
        await count_observation(conn, tenant, _observed(list(closed.values()), source))
        return closed

    async def sweep(self, now: datetime | None = None, *, limit: int = 1000) -> int:
        """Timeout positives for fires older than the undo window; returns how many were applied.

        Tenant by tenant in name order, each through ``_close``: a fire's heuristic is locked before
        the fire, as a rating locks them, or a sweep and a rating each held what the other waited for."""
        now = now or self.clock.now()
        applied = 0
        async with self.database.transaction() as conn:
            due = await self.fires.due(conn, now - self.window, limit)
            by_tenant: dict[str, list[StoredFire]] = defaultdict(list)
            for fire in due:
                by_tenant[fire.tenant].append(fire)
            for tenant in sorted(by_tenant):
                closed = await self._close(conn, tenant, by_tenant[tenant], "implicit_timeout", now)
                fires = [closed[fire.id] for fire in by_tenant[tenant] if fire.id in closed]  # oldest first
                applied += len(fires)
                signals = [
                    self.strategy.interpret_timeout(
                        fire.heuristic_id, fire.event_id, (now - fire.fired_at).total_seconds()
                    )
                    for fire in fires
                ]
                await self._apply(conn, tenant, signals, fires)
                # a fire that was not ignored breaks the run of consecutive ignores
                await self.fires.reset_ignore_streak(conn, tenant, sorted({fire.heuristic_id for fire in fires}))
        return applied

    # ------------------------------------------------------------------ explicit

    async def explicit(
        self,
        conn: AsyncConnection,
        tenant: str,
        fire: StoredFire,
        *,
        positive: bool,
        magnitude: float,
        source: str,
        key: str,
    ) -> ConfidenceUpdate | None:
        """Apply a rating of ``fire``; what it replaces is taken back first (last click wins): a rating
        already standing on it, with what it taught the heuristic's scope, or else the soft outcome the
        fire had (a rating says outright whether it helped; the outcome only hinted at it)."""
        standing = retract = fire.standing
        details: dict[str, Any] = {}
        if standing is not None:  # last click wins: the history says this one replaced it
            details["took_back"] = fire.standing_named
        if retract is None and (soft := await self._soft_evidence(conn, tenant, fire)) is not None:
            retract = soft
            details["took_back"] = fire.implicit_source
        if positive:
            await self._recover(conn, tenant, fire)
        lesson = await self._lesson(conn, tenant, fire, positive, source, retake=EXPLICIT_SOURCES)
        if lesson is not None:
            details.update(lesson.details())
        item = EvidenceItem(
            fire.heuristic_id, positive, magnitude, source, key=key, event_id=fire.event_id, fire_id=fire.id,
            retract=retract, details=details or None,
            scope_only=lesson is not None and not lesson.moves_confidence, explicit=True,
        )  # fmt: skip
        (update,) = await self.heuristics.apply_evidence(tenant, [item], connection=conn, missing_ok=True)
        if update is not None and update.applied:
            await self.fires.set_explicit(
                conn, fire.id, source=source, positive=positive, weight=update.weight, at=self.clock.now()
            )
            await self._rerated(conn, tenant, fire, positive, None if standing is None else standing.positive)
        await self.fires.reset_ignore_streak(conn, tenant, [fire.heuristic_id])
        return update

    async def _soft_evidence(self, conn: AsyncConnection, tenant: str, fire: StoredFire) -> Retraction | None:
        """The soft outcome ``fire`` had (``calibrated``: weighed both ways), as what would take it back;
        None when it had none, or a hard one. It counts while no rating stands on the fire: a soft outcome
        that comes after a rating adds nothing (``rated``), and a first rating takes it back."""
        if fire.implicit_source in (None, CALLER):
            return None
        evidence = await self.heuristics.evidence_for_key(tenant, implicit_key(fire.id), connection=conn)
        if evidence is None or evidence.helped_share is None:
            return None
        return evidence

    async def _confirmed(self, conn: AsyncConnection, tenant: str, fire: StoredFire, positive: bool) -> None:
        """An undo, a thanks or a complaint confirms what came of a fire (F-25's outcome-confirmed
        count, where silence confirms nothing): counted as a success or a failure, unless a rating
        already stands on the fire (the rating is its last word)."""
        await self.fires.set_implicit_outcome(conn, fire.id, positive)
        if fire.standing is None:
            await self.heuristics.record_outcome(tenant, fire.heuristic_id, success=positive, connection=conn)

    async def _recover(self, conn: AsyncConnection, tenant: str, fire: StoredFire) -> None:
        """A probation fire went well (``executive.recovery``): the undo it was on probation for is
        taken back, once (the recovery's own key)."""
        if fire.probation_of is None:
            return
        undo = await self.heuristics.evidence_for_key(tenant, fire.probation_of, connection=conn)
        if undo is None:
            return
        why = "its probation fire went well: the undo that took it below the threshold was about the moment"
        item = EvidenceItem(
            fire.heuristic_id, False, 0.0, "recovered", key=f"recovered:{fire.probation_of}", event_id=fire.event_id,
            fire_id=fire.id, retract=undo, scope_only=True, details={"lesson": "recovered", "why": why},
        )  # fmt: skip
        await self.heuristics.apply_evidence(tenant, [item], connection=conn, missing_ok=True)

    async def _lesson(
        self,
        conn: AsyncConnection,
        tenant: str,
        fire: StoredFire,
        positive: bool,
        source: str,
        *,
        retake: Collection[str] = (),
    ) -> Lesson | None:
        """What this outcome of ``fire`` teaches (None without a teacher); what earlier signals of the
        fire from ``retake`` taught the scope is taken back first."""
        if self.lessons is None:
            return None
        if retake:
            await self.lessons.take_back(conn, tenant, fire, sorted(retake))
        if positive:
            return await self.lessons.positive(conn, tenant, fire, source)
        return await self.lessons.negative(conn, tenant, fire, source)

    async def withdraw(
        self, conn: AsyncConnection, tenant: str, fire: StoredFire, *, key: str
    ) -> ConfidenceUpdate | None:
        """A neutral rating after a positive or negative one: the last click wins, and it says nothing,
        so the standing rating's evidence, outcome count and channel observation are taken back."""
        retract = fire.standing
        if retract is None:
            return None
        if self.lessons is not None:
            await self.lessons.take_back(conn, tenant, fire, sorted(EXPLICIT_SOURCES))
        details: dict[str, Any] = {"withdrawn": True, "took_back": fire.standing_named}
        soft = await self._soft_evidence(conn, tenant, fire)
        if soft is not None:  # the soft outcome the rating replaced counts again
            details["put_back"] = fire.implicit_source
        item = EvidenceItem(
            fire.heuristic_id, retract.positive, 0.0, str(fire.explicit_source), key=key, event_id=fire.event_id,
            fire_id=fire.id, retract=retract, restore=soft, details=details,
        )  # fmt: skip
        (update,) = await self.heuristics.apply_evidence(tenant, [item], connection=conn, missing_ok=True)
        if update is not None and update.applied:
            await self.fires.clear_explicit(conn, fire.id)
            await self._rerated(conn, tenant, fire, None, retract.positive)
        return update

    async def _rerated(
        self, conn: AsyncConnection, tenant: str, fire: StoredFire, positive: bool | None, before: bool | None
    ) -> None:
        """The standing rating of ``fire`` went from ``before`` to ``positive`` (None: none stands). The
        channel learns what the fire's outcome meant (helped as rated), and the outcome counters count
        the fire once, as rated last: one rule for every click (last click wins)."""
        if fire.implicit_source not in (None, CALLER):  # the caller's own signals are not an outcome seen here
            changes = ((positive, 1.0), (before, -1.0))
            observed = [(fire.implicit_source, helped, delta) for helped, delta in changes if helped is not None]
            await count_observation(conn, tenant, observed)
        # a confirming implicit outcome (an undo, a thanks) counts until a rating stands, and again after
        # one is withdrawn: the counters hold each fire once, as its last word says
        implicit = fire.implicit_positive
        await self.heuristics.record_outcome(
            tenant,
            fire.heuristic_id,
            success=implicit if positive is None else positive,
            replaces=implicit if before is None else before,
            connection=conn,
        )

    async def rate(
        self, conn: AsyncConnection, tenant: str, fire: StoredFire, feedback: Feedback, signed: float
    ) -> ConfidenceUpdate | None:
        """An explicit rating of a fire: binary through the strategy (seed: 0.8), scores by the F-23 mapping;
        a neutral score (magnitude 0) takes the standing rating back (``withdraw``).

        Last click wins under concurrency too: the heuristic's row is locked first (where every rating
        of it queues, in the order ``evidence_writer`` locks) and the fire's standing rating read again
        under it. Read before the lock, two opposite ratings sent at once on PostgreSQL would each find
        none standing and both count."""
        await self.heuristics.lock(tenant, [fire.heuristic_id], connection=conn)
        fire = await self.fires.get(conn, tenant, fire.id) or fire
        if signed == 0:
            return await self.withdraw(conn, tenant, fire, key=f"explicit:{feedback.key}")
        positive = signed > 0
        if feedback.scale == "binary":
            signal = self.strategy.interpret_explicit_feedback(
                fire.event_id, fire.heuristic_id, positive, feedback.source
            )
            magnitude, source = signal.magnitude, signal.source
        else:
            magnitude, source = abs(signed), feedback.source
        return await self.explicit(
            conn, tenant, fire, positive=positive, magnitude=magnitude, source=source, key=f"explicit:{feedback.key}"
        )

    async def fire_for_response(self, conn: AsyncConnection, tenant: str, response_id: str) -> StoredFire | None:
        """The fire a decision caused (its ``response_id``), read in the caller's transaction; None: none."""
        return await self.fires.for_response(conn, tenant, response_id)

    async def fire(self, tenant: str, fire_id: str) -> StoredFire | None:
        async with self.database.connect() as conn:
            return await self.fires.get(conn, tenant, fire_id)

    # ------------------------------------------------------------------ applying

    async def apply(self, tenant: str, signals: Sequence[FeedbackSignal]) -> list[SignalOutcome]:
        """Apply signals from outside the module (e.g. a custom detector), in one transaction."""
        async with self.database.transaction() as conn:
            return await self._apply(conn, tenant, signals, [None] * len(signals))

    async def _apply(
        self,
        conn: AsyncConnection,
        tenant: str,
        signals: Sequence[FeedbackSignal],
        fires: Sequence[FireRecord | None],
    ) -> list[SignalOutcome]:
        """Seed 001 ``_apply_signal``: NEUTRAL is skipped; magnitude and source go to memory."""
        items: list[EvidenceItem] = []
        outcomes: list[SignalOutcome | None] = []
        for signal, fire in zip(signals, fires, strict=True):
            if signal.signal_type is SignalType.NEUTRAL:
                outcomes.append(_outcome(signal, fire, "neutral"))
                continue
            positive = signal.signal_type is SignalType.POSITIVE
            if signal.source in CONFIRMING and isinstance(fire, StoredFire):
                await self._confirmed(conn, tenant, fire, positive)
            if signal.soft and isinstance(fire, StoredFire) and fire.standing is not None:
                # a soft outcome is evidence of whether the fire helped; its rating says so outright, and
                # counted already (a 👎 then silence had weighed the timeout at the heuristic's confidence)
                outcomes.append(_outcome(signal, fire, "rated"))
                continue
            details = dict(signal.metadata)
            scope_only = False
            if positive and isinstance(fire, StoredFire):
                await self._recover(conn, tenant, fire)
            if signal.source in _PLAIN_LESSONS:
                details.update(lesson=_PLAIN_LESSONS[signal.source][0], why=_PLAIN_LESSONS[signal.source][1])
            elif isinstance(fire, StoredFire):
                lesson = await self._lesson(conn, tenant, fire, positive, signal.source)
                if lesson is not None:
                    details.update(lesson.details())
                    scope_only = not lesson.moves_confidence
            items.append(
                EvidenceItem(
                    signal.heuristic_id,
                    positive,
                    signal.magnitude,
                    signal.source,
                    key=implicit_key(fire.id) if fire is not None else None,
                    event_id=signal.event_id or None,
                    fire_id=fire.id if fire is not None else None,
                    details=details or None,
                    outcome=signal.source if signal.soft else None,
                    scope_only=scope_only,
                )
            )
            outcomes.append(None)
        updates = iter(await self.heuristics.apply_evidence(tenant, items, connection=conn, missing_ok=True))
        result: list[SignalOutcome] = []
        for signal, fire, outcome in zip(signals, fires, outcomes, strict=True):
            if outcome is None:
                update = next(updates)
                outcome = _outcome(signal, fire, "missing" if update is None else update.effect, update)
            result.append(outcome)
        return result

    # ------------------------------------------------------------------ channel

    async def channel(self, tenant: str) -> ChannelReport:
        """The tenant's channel: learned counts over the strategy's prior (the default prior for a
        strategy that does not weigh outcomes, to show what switching to ``calibrated`` would use)."""
        counts = as_counts(await self.database.read(counts_query(tenant), {}))
        prior = self.strategy.channel or Channel.prior(DEFAULT_CHANNEL_PRIOR, DEFAULT_CHANNEL_PRIOR_STRENGTH)
        learned = prior.plus(counts)
        observed = {(outcome, helped): count for outcome, helped, count in counts}
        return ChannelReport(
            strategy=str(self.strategy.config.get("strategy", type(self.strategy).__name__)),
            weighs_outcomes=self.strategy.channel is not None,
            outcomes=[
                ChannelOutcome(
                    outcome=outcome,
                    rated_helped=round(observed.get((outcome, True), 0.0)),  # whole fires, kept as a float
                    rated_not_helped=round(observed.get((outcome, False), 0.0)),
                    p_given_helped=learned.likelihoods(outcome)[0],
                    p_given_not_helped=learned.likelihoods(outcome)[1],
                    helped_share_at_half=learned.share(outcome, 0.5),
                )
                for outcome in OUTCOMES
            ],
        )

    # ------------------------------------------------------------------ history

    async def history(
        self, tenant: str, heuristic_id: str, *, limit: int = 1000, offset: int = 0
    ) -> Page[HistoryEntry]:
        """Confidence over time, newest first, each step with the signal that moved it."""
        await self.heuristics.get(tenant, heuristic_id)  # 404 for an unknown heuristic
        page = await self.heuristics.confidence_page(tenant, heuristic_id, limit=limit, offset=offset)
        entries = [_history_entry(row) for row in page.items]
        return Page[HistoryEntry].model_construct(items=entries, limit=limit, offset=offset, total=page.total)


def _history_entry(row: Mapping[str, Any]) -> HistoryEntry:
    """One ``confidence_events`` row as a step of the history, with what its details say."""
    details = row["details"] or {}
    return HistoryEntry(
        at=row["created_at"],
        source=row["source"],
        positive=row["positive"],
        magnitude=row["magnitude"],
        weight=row["weight"],
        old_confidence=row["old_confidence"],
        new_confidence=row["new_confidence"],
        event_id=row["event_id"],
        fire_id=row["fire_id"],
        helped_share=details.get("helped_share"),
        lesson=details.get("lesson"),
        why=details.get("why"),
        took_back=details.get("took_back"),
        withdrawn=bool(details.get("withdrawn")),
        put_back=details.get("put_back"),
    )


def _latest_per_heuristic(fires: Sequence[StoredFire], closed: Collection[str]) -> dict[str, StoredFire]:
    """Each heuristic's latest fire among those just closed (``fires`` are oldest first)."""
    latest: dict[str, StoredFire] = {}
    for fire in fires:
        if fire.id in closed:
            latest[fire.heuristic_id] = fire
    return latest


def _observed(fires: Sequence[StoredFire], outcome: str) -> list[tuple[str, bool, float]]:
    """Channel observations: the outcome of each fire that has a standing rating."""
    return [(outcome, fire.explicit_positive, 1.0) for fire in fires if fire.explicit_positive is not None]


def _neutral(fire: StoredFire, source: str) -> FeedbackSignal:
    """An earlier fire of a heuristic whose follow-up signal went with its latest fire."""
    return FeedbackSignal(SignalType.NEUTRAL, fire.heuristic_id, fire.event_id, source, 0.0)


def _outcome(
    signal: FeedbackSignal, fire: FireRecord | None, effect: str, update: ConfidenceUpdate | None = None
) -> SignalOutcome:
    return SignalOutcome(
        heuristic_id=signal.heuristic_id,
        fire_id=fire.id if fire is not None else None,
        source=signal.source,
        signal=signal.signal_type.value,
        soft=signal.soft,
        magnitude=signal.magnitude,
        effect=effect,
        old_confidence=None if update is None else update.old_confidence,
        new_confidence=None if update is None else update.new_confidence,
    )
