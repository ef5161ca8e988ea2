"""Seed 004 §2's ``donna_loop`` for one user, after the pre-filter let them through.

context → candidates (LLM or templates) → scoring → one transaction: consume the signals,
save deferred insights, claim the send (exactly once per user and cycle, the pre-filter re-run
under the user's lock), write the decision record → deliver the top candidate through the
outbox (``outbox``: retried until the channel takes it, or failed for good). Only one message
per cycle, ever.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.audit.models import DecisionKind, NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.decision import NoExpensiveStage, Verdict, commit, verdicts
from phronesis.embeddings.types import Embedder
from phronesis.exceptions import LLMError, NotFoundError, PhronesisError
from phronesis.ids import new_id
from phronesis.proactive.candidates import CandidateSource, Proposed
from phronesis.proactive.channels.types import Outbound
from phronesis.proactive.context import CycleContext
from phronesis.proactive.controls import TenantControls
from phronesis.proactive.fates import Fate, covered_signals, fates, named, waiting
from phronesis.proactive.feedback import FeedbackLoop
from phronesis.proactive.insights import InsightRepository
from phronesis.proactive.meaning import meanings_of
from phronesis.proactive.models import BlockReason, Candidate, CandidatePreview, CycleResult, Preview
from phronesis.proactive.outbox import Attempt, Outbox
from phronesis.proactive.prefilter import Screened, UserState, prefilter
from phronesis.proactive.quiet_hours import is_quiet, next_wake
from phronesis.proactive.scoring import Scored, by_wording, score_candidates
from phronesis.proactive.sends import SendRepository
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.signals import SignalRepository
from phronesis.proactive.state import CAP_LOOKBACK, zone
from phronesis.proactive.suppression import suppressed_topics, topics_of
from phronesis.proactive.templates import better_timed_at, moment_of
from phronesis.proactive.topics import active_topics
from phronesis.proactive.users import UserRepository, opted_out_by
from phronesis.storage.database import Database

__all__ = ["ProactiveParts", "ProactiveService", "cycle_key"]

log = logging.getLogger("phronesis.proactive")


def cycle_key(now: datetime, minutes: float) -> str:
    """The scheduler slot ``now`` falls in: every run for a user in one slot is the same cycle."""
    return f"c{int(now.timestamp() // (minutes * 60))}"


LLM_CONCURRENCY = 8
"""Candidate requests of a batch in flight at once (each may be an LLM call)."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """One user's cycle, decided up to its commit: its candidates, then (the check) their scores."""

    screened: Screened
    state: UserState
    context: CycleContext
    proposed: Proposed
    scored: list[Scored] = field(default_factory=list)
    chosen: Scored | None = None
    deferred: list[Scored] = field(default_factory=list)


Pair = tuple[Screened, UserState]
"""A screened user and the state it was screened on: one item of a cycle's batch."""


@dataclass(frozen=True, slots=True)
class Held:
    """A batch of cycles, as the skeleton's input: the users whose slot this run holds."""

    pairs: Sequence[Pair]
    key: str
    now: datetime


@dataclass(slots=True)
class Cycles:
    """A batch's context as the cycle's stages pass it on: every user's context (read in five
    queries), then what the commit made of each user and the records it wrote."""

    tenant: str
    key: str
    now: datetime
    pairs: Sequence[Pair]
    contexts: dict[str, CycleContext]
    committed: dict[str, CycleResult | PhronesisError] = field(default_factory=dict)
    records: dict[str, NewDecisionRecord] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    """When the batch's cycles began: each record's latency is its whole cycle's, reading the
    user's context, any LLM call, scoring and the commit included."""


@dataclass(frozen=True, slots=True)
class _Decided:
    """One user's committed cycle, as written in the batch's transaction."""

    result: CycleResult
    insights: list[dict[str, Any]]
    claim: dict[str, Any] | None
    record: NewDecisionRecord
    fates: list[Fate]
    held: dict[str, tuple[datetime, str]]
    """Signals deferred at night that wait for the user's wake: id → (when, why)."""


@dataclass(frozen=True, slots=True)
class ProactiveParts:
    database: Database
    users: UserRepository
    signals: SignalRepository
    sends: SendRepository
    insights: InsightRepository
    feedback: FeedbackLoop
    candidates: CandidateSource
    decisions: DecisionRecordRepository
    controls: TenantControls
    outbox: Outbox
    embedder: Embedder | None = None
    """The sentence model, for repeats whose subject is unknown (``meaning``); None: by words."""


class ProactiveService:
    def __init__(self, settings: ProactiveSettings, parts: ProactiveParts, rng: random.Random) -> None:
        self._settings = settings
        self._p = parts
        self._rng = rng

    async def _contexts(self, tenant: str, screened: Sequence[Screened], now: datetime) -> dict[str, CycleContext]:
        """Every user's context for a batch, in five queries whatever its size (a context read per
        user is a third of a cycle's time at 1,000 users/s)."""
        p, s = self._p, self._settings
        ids = [one.user_id for one in screened]
        async with p.database.connect() as conn:
            users = {row.id: p.users.profile(row) for row in await p.users.rows(conn, tenant, ids)}
            since = now - timedelta(hours=s.dedup_window_hours)
            recent = await p.sends.recent_messages(conn, tenant, ids, s.recent_messages, since=since)
            subjects = await p.signals.subjects_of(conn, tenant, ids, since)
            deferred = await p.insights.fresh(conn, tenant, ids, now, 10)
            feedback = await p.feedback.summaries(conn, tenant, ids, now)
        return {
            one.user_id: CycleContext(
                user=users[one.user_id],
                trust=one.trust,
                signals=one.signals,
                recent_messages=[text for _, text in recent.get(one.user_id, [])],
                recent_subjects=_subjects(recent.get(one.user_id, []), subjects),
                deferred=deferred.get(one.user_id, []),
                feedback=feedback[one.user_id],
                feedback_days=s.feedback_days,
                local_time=now.astimezone(zone(users[one.user_id].timezone)),
                now=now,
            )
            for one in screened
            if one.user_id in users  # deleted since it was screened: nothing to decide
        }

    async def _context(self, tenant: str, screened: Screened, now: datetime) -> CycleContext:
        context = (await self._contexts(tenant, [screened], now)).get(screened.user_id)
        if context is None:
            raise NotFoundError("user", screened.user_id)
        return context

    async def preview(
        self, tenant: str, screened: Screened, now: datetime, *, candidates: CandidateSource | None = None
    ) -> Preview:
        """The cycle's decision without its effects: context, candidates and scores as
        ``run`` makes them, then nothing is committed, consumed, sent or recorded. Exploration is
        not drawn: a candidate in the band shows the chance it had."""
        context = await self._context(tenant, screened, now)
        proposed = await (candidates or self._p.candidates).propose(context)
        scored = await self._score(screened, context, proposed, _NeverExplore())
        chosen = next((c for c in scored if c.sendable), None)
        return Preview(
            user_id=screened.user_id,
            at=now,
            decision="would_send" if chosen else "silent",
            reason="sent" if chosen else _silence(scored),
            trust_level=screened.trust.level,
            threshold=screened.trust.policy.score_threshold,
            sends_today=screened.sends_today,
            signals=screened.signals,
            candidates=[
                CandidatePreview(
                    message=c.candidate.message,
                    category=c.candidate.category,
                    action_type=c.candidate.action_type,
                    score=c.score,
                    verdict=c.verdict,
                    probability=c.probability,
                )
                for c in scored
            ],
            message=chosen.candidate.message if chosen else None,
            category=chosen.candidate.category if chosen else None,
            llm_called=proposed.llm_called,
            fallback_reason=proposed.fallback_reason,
        )

    async def run(self, tenant: str, screened: Screened, state: UserState, now: datetime) -> CycleResult:
        """One user's cycle (``run_many`` of one)."""
        [result] = await self.run_many(tenant, [(screened, state)], now)
        if isinstance(result, PhronesisError):
            raise result
        return result

    async def run_many(
        self, tenant: str, pairs: Sequence[tuple[Screened, UserState]], now: datetime
    ) -> list[CycleResult | PhronesisError]:
        """The cycles of a batch of screened users, in the order given; a user whose cycle failed
        gets its error (the others go on).

        Set-based: the contexts in five queries; the candidates per user (the LLM, a few at a
        time); one transaction commits the batch under the users' locks; the deliveries run
        together and settle in one transaction. A batch whose commit fails is committed again
        user by user, so one bad user costs only their own cycle.
        """
        key = cycle_key(now, self._settings.cycle_minutes)
        # the slot first: a run that another run of this slot beat (or is ahead of) stops here,
        # before any candidate is generated (else racing runs ask 4 LLM calls for one send)
        held = await self._p.sends.hold(tenant, [one.user_id for one, _ in pairs], key, now)
        try:
            mine = [(one, state) for one, state in pairs if one.user_id in held]
            decided = await self._run_held(tenant, mine, key, now)
        finally:
            await self._p.sends.release(tenant, sorted(held), key)
        return [decided.get(one.user_id) or _lost(one, key) for one, _ in pairs]

    async def _run_held(
        self, tenant: str, pairs: Sequence[Pair], key: str, now: datetime
    ) -> dict[str, CycleResult | PhronesisError]:
        """``run_many`` for the users whose slot this run holds, through the decision skeleton's
        batch form (``phronesis.decision``: this runner is the cycle's ``EachStages``)."""
        if not pairs:
            return {}
        cycles = await self.context(tenant, Held(pairs, key, now))
        decided = await verdicts(self, cycles, at_once=LLM_CONCURRENCY)
        ready = [(pair, verdict) for pair, verdict in decided if isinstance(verdict.outcome, _Plan)]
        try:
            await commit(self, cycles, ready, records=self._p.decisions)
        except PhronesisError:
            if len(ready) == 1:
                raise
            cycles.committed, cycles.records = {}, {}
            for one in ready:  # one bad user must not cost the batch its cycles
                try:
                    await commit(self, cycles, [one], records=self._p.decisions)
                except PhronesisError as exc:
                    log.error("proactive cycle of %s/%s failed: %s", tenant, one[0][0].user_id, exc)
                    cycles.committed[one[0][0].user_id] = exc
        plans = [verdict.outcome for _, verdict in ready if isinstance(verdict.outcome, _Plan)]
        await self._deliver(tenant, plans, cycles.committed, now)
        return {
            screened.user_id: verdict.outcome
            if isinstance(verdict.outcome, PhronesisError)
            else cycles.committed[screened.user_id]
            for (screened, _), verdict in decided
        }

    # -- the cycle's stages (``phronesis.decision.EachStages``) -------------------------------------

    kind: DecisionKind = "proactive"

    async def context(self, tenant: str, given: Held) -> Cycles:
        """Every user's context: profile, recent messages and their subjects, deferred insights,
        feedback (the pre-filter ran before, set-based over the tick's chunk: ``Ticker.screen``)."""
        started = time.perf_counter()
        contexts = await self._contexts(tenant, [one for one, _ in given.pairs], given.now)
        return Cycles(tenant, given.key, given.now, given.pairs, contexts, started=started)

    def items(self, context: Cycles) -> Sequence[Pair]:
        return context.pairs

    async def cheap(self, context: Cycles, item: Pair) -> Verdict[_Plan | PhronesisError] | None:
        """A user deleted since the screening: nothing to decide (the error is their answer)."""
        user_id = item[0].user_id
        if user_id in context.contexts:
            return None
        return Verdict(NotFoundError("user", user_id), "error", "the user was deleted since the screening")

    async def expensive(self, context: Cycles, item: Pair) -> Verdict[_Plan | PhronesisError]:
        """The LLM's candidates (an unusable answer falls back to the templates, saying so). A
        failure that is not the LLM's is this user's error: the others go on."""
        screened, state = item
        user = context.contexts[screened.user_id]
        try:
            proposed = await self._p.candidates.generate(user)
        except (NoExpensiveStage, LLMError):
            raise  # the fallback's: the templates
        except PhronesisError as exc:
            return Verdict(exc, "error", str(exc))
        return Verdict(_Plan(screened, state, user, proposed), proposed.path, proposed.fallback_reason or "")

    def fallback(self, context: Cycles, item: Pair, why: str) -> Verdict[_Plan | PhronesisError]:
        """Seed 004: with no LLM, template candidates; with one that failed, the templates, saying why."""
        screened, state = item
        user = context.contexts[screened.user_id]
        candidates = self._p.candidates
        proposed = candidates.templates(user, why=why if candidates.llm_configured else None)
        return Verdict(_Plan(screened, state, user, proposed), proposed.path, proposed.fallback_reason or "")

    async def check(
        self, context: Cycles, item: Pair, verdict: Verdict[_Plan | PhronesisError]
    ) -> Verdict[_Plan | PhronesisError]:
        """Seed 004 §6: the candidates scored against the user's trust threshold, recent messages,
        suppressions and opt-outs; the best sendable one chosen, the deferred ones kept."""
        plan = verdict.outcome
        if isinstance(plan, PhronesisError):
            return verdict
        return Verdict(
            await self._plan(plan.screened, plan.state, plan.context, plan.proposed), verdict.path, verdict.reason
        )

    def transaction(self) -> AbstractAsyncContextManager[AsyncConnection]:
        return self._p.database.transaction()

    async def effects(
        self, writes: AsyncConnection, context: Cycles, decided: Sequence[tuple[Pair, Verdict[_Plan | PhronesisError]]]
    ) -> Sequence[Verdict[_Plan | PhronesisError]]:
        """The batch's commit (``_commit``): each user's outcome is in ``context.committed``."""
        plans = [verdict.outcome for _, verdict in decided if isinstance(verdict.outcome, _Plan)]
        context.committed |= await self._commit(writes, context, plans)
        return [verdict for _, verdict in decided]

    def record(self, context: Cycles, item: Pair, verdict: Verdict[_Plan | PhronesisError]) -> NewDecisionRecord | None:
        """The cycle's record; none for a cycle another worker ran first (``already_sent``)."""
        record = context.records.get(item[0].user_id)
        if record is None:
            return None
        latency_ms = (time.perf_counter() - context.started) * 1000
        llm = {"llm_latency_ms": record.latency_ms}
        return record.model_copy(update={"latency_ms": latency_ms, "attributes": record.attributes | llm})

    async def _score(
        self, screened: Screened, context: CycleContext, proposed: Proposed, rng: random.Random
    ) -> list[Scored]:
        """Seed 004 §6 on this user's candidates: their trust threshold, recent messages,
        suppressed and opted-out categories (a cycle and a preview score alike). Repeats: by
        subject, else by meaning when an embedder is configured (``meaning``), else by words."""
        candidates = [named(candidate, context.signals) for candidate in proposed.candidates]
        compared = by_wording(candidates, context.recent_messages, context.recent_subjects)
        return score_candidates(
            candidates,
            threshold=screened.trust.policy.score_threshold,
            recent_messages=context.recent_messages,
            suppressed=suppressed_topics(context.feedback),
            settings=self._settings,
            rng=rng,
            opted_out=frozenset(context.user.opted_out_categories),
            stopped_topics=active_topics(context.user.opted_out_topics, context.now),
            allowed_topics=frozenset(context.user.opted_in_topics),
            everything_off=context.user.opted_out,
            weights=screened.trust.weights,
            recent_subjects=context.recent_subjects,
            meanings=await meanings_of(self._p.embedder, compared),
        )

    async def _plan(self, screened: Screened, state: UserState, context: CycleContext, proposed: Proposed) -> _Plan:
        scored = await self._score(screened, context, proposed, self._rng)
        chosen = next((c for c in scored if c.sendable), None)
        return _Plan(screened, state, context, proposed, scored, chosen, [c for c in scored if c.verdict == "deferred"])

    async def _commit(
        self, conn: AsyncConnection, cycles: Cycles, plans: list[_Plan]
    ) -> dict[str, CycleResult | PhronesisError]:
        """One transaction for the batch: lock the users (in id order), re-run the pre-filter on
        what is true now for those about to send, use the signals, keep deferred insights and claim
        the sends; the decision records (``cycles.records``) are written after, in it. Per user,
        exactly what a cycle of one did."""
        p, tenant, key = self._p, cycles.tenant, cycles.key
        if not plans:
            return {}
        now = plans[0].context.now
        ids = [one.screened.user_id for one in plans]
        locked = await p.users.lock(conn, tenant, ids)
        claimed = await p.sends.claimed(conn, tenant, ids, key)
        screen = [one for one in plans if one.chosen is not None and one.screened.user_id in locked]
        blocked = await self._screen_again(conn, tenant, screen, locked) if screen else {}
        out: dict[str, CycleResult | PhronesisError] = {}
        going: list[tuple[_Plan, _Decided]] = []
        for one in plans:
            user_id = one.screened.user_id
            if user_id not in locked or user_id in claimed:
                out[user_id] = self._already_done(one, key)  # another worker ran this cycle first
                continue
            going.append((one, self._decided(tenant, one, blocked.get(user_id), key)))
        # a signal is used only when something was decided about it (``fates``)
        used = await p.signals.consume(conn, tenant, [f.signal_id for _, d in going for f in d.fates], now, key)
        insights: list[dict[str, Any]] = []
        claims: list[dict[str, Any]] = []
        settled: list[Fate] = []
        for one, decided in going:
            user_id = one.screened.user_id
            use = {f.signal_id for f in decided.fates}
            if use and not used.intersection(use):
                out[user_id] = self._already_done(one, key)  # another worker used them in this very cycle
                continue
            insights += decided.insights
            claims += [decided.claim] if decided.claim else []
            cycles.records[user_id] = decided.record
            settled += [f for f in decided.fates if f.signal_id in used]
            out[user_id] = decided.result
        await p.insights.save(conn, insights)
        await p.sends.claim(conn, claims)
        await p.signals.settle(conn, tenant, settled)
        await p.signals.hold(conn, tenant, {k: v for _, d in going for k, v in d.held.items()})
        # what a cycle left unused waits, and says why: blocked at the commit, or passed over by this
        # cycle's message (one a cycle), or beyond the candidates it considered; a signal whose moment then
        # passed said "expired" with no reason
        waits = {user_id: why for user_id, done in out.items() if isinstance(done, CycleResult)
                 and done.reason != "already_sent" and (why := waiting(done.decision)) is not None}  # fmt: skip
        waits |= {user_id: why for user_id, reason in blocked.items() if (why := waiting(reason)) is not None}
        await p.signals.note_waits(conn, tenant, waits)
        return out

    def _decided(self, tenant: str, one: _Plan, blocked: BlockReason | None, key: str) -> _Decided:
        """One user's decision in the batch: the result, the insight rows, the claim, the record and
        what each signal became (none when blocked: the signals wait for their turn)."""
        s, context, now = self._settings, one.context, one.context.now
        user, scored, chosen, deferred = context.user, one.scored, one.chosen, one.deferred
        reason: str
        held = self._held(one) if blocked is None else {}
        if held:  # a deferral at night that waits for the wake keeps no insight
            deferred = [d for d in deferred if not covered_signals(d.candidate, context.signals) <= set(held)]
        insight_ids = [new_id() for _ in deferred]
        if blocked is not None:  # like the pre-filter's blocks: the signals wait for their turn
            chosen, reason, deferred = None, blocked, []
        elif chosen is not None:
            reason = "explored" if chosen.verdict == "explored" else "sent"
        else:
            reason = _silence(scored)
        rows = [
            {
                "tenant": tenant,
                "id": insight_ids[index],
                "user_id": user.id,
                "category": d.candidate.category,
                "message_draft": d.candidate.message,
                "trigger_signals": d.candidate.trigger_signals,
                "relevance_score": d.score,
                "cycle_key": key,
                "created_at": now,
                "expires_at": now + timedelta(hours=s.deferred_ttl_hours),
                "used": False,
                "used_at": None,
            }
            for index, d in enumerate(deferred)
        ]
        send_id = new_id() if chosen is not None else None
        decision_id = new_id()
        probability = self._probability(scored, chosen)
        claim = None
        if chosen is not None:
            claim = {
                "tenant": tenant,
                "id": send_id,
                "user_id": user.id,
                "cycle_key": key,
                "message": chosen.candidate.message,
                "category": chosen.candidate.category,
                "trigger_signals": chosen.candidate.trigger_signals,
                "action_type": chosen.candidate.action_type,
                "channel": user.channel,
                "score": chosen.score,
                "probability": probability,
                "delivery_status": "sending",
                "delivery_detail": None,
                "sent_at": now,
                "outcome": "pending",
                "response_latency_seconds": None,
                "outcome_at": None,
                "attempts": 1,
                "next_attempt_at": self._p.outbox.lease_until(now),
                "decision_id": decision_id,
            }
        proposed = one.proposed
        record = self._record(
            tenant,
            decision_id,
            context,
            proposed,
            scored,
            chosen,
            reason,
            key,
            send_id,
            probability,
            one.screened.sends_today,
        )
        result = CycleResult(
            user_id=user.id,
            cycle_key=key,
            decision="sent" if chosen is not None else "silent",
            reason=reason,
            trust_level=context.trust.level,
            llm_called=proposed.llm_called,
            message=chosen.candidate.message if chosen else None,
            category=chosen.candidate.category if chosen else None,
            action_type=chosen.candidate.action_type if chosen else None,
            score=chosen.score if chosen else (max((c.score for c in scored), default=None)),
            threshold=context.trust.policy.score_threshold,
            probability=probability,
            send_id=send_id,
            channel=user.channel if chosen else None,
            deferred=len(deferred),
            signals=[sig.type for sig in context.signals],
            decision_id=decision_id,
            prompt_tokens=proposed.prompt_tokens,
            completion_tokens=proposed.completion_tokens,
        )
        ended: list[Fate] = []
        if blocked is None:
            positions = {id(d): i for i, d in enumerate(deferred)}
            expiry = now + timedelta(hours=s.deferred_ttl_hours)
            ended = fates(
                context.signals,
                scored,
                chosen,
                send_id=send_id,
                insights={
                    index: (insight_ids[positions[id(c)]], expiry)
                    for index, c in enumerate(scored)
                    if id(c) in positions
                },
                decision_id=decision_id,
                candidates_full=len(proposed.candidates) >= s.max_candidates,
                now=now,
            )
        return _Decided(result, rows, claim, record, [f for f in ended if f.signal_id not in held], held)

    def _held(self, one: _Plan) -> dict[str, tuple[datetime, str]]:
        """The signals of deferred candidates to consider again later instead of keeping them as a
        deferred insight, with when and why:

        - at night (quiet hours, or ``wake_retry_hours`` before them), when every signal's moment
          comes after the wake: at the wake (a new user at 23:30 with a deadline at 09:30,
          score 6.95 under 7.0, would otherwise get a deferred insight and no reminder in the morning);
        - urgent ones (``urgent_threshold``) at any hour: when their timing next improves (a day,
          six hours, an hour before the moment), if that is before the moment. An urgent deadline
          36 hours away scores under a new user's threshold; kept as an insight it would never be told
          (the month bench: 20 of the urgent signals missed).
        """
        s, state, now = self._settings, one.state, one.context.now
        if not one.deferred:
            return {}
        soon = now + timedelta(hours=s.wake_retry_hours)
        night = s.wake_retry_hours > 0 and any(
            is_quiet(t, state.zone, wake=state.wake, sleep=state.sleep) for t in (now, soon)
        )
        wake = next_wake(now, state.zone, wake=state.wake)
        by_id = {signal.id: signal for signal in one.context.signals}
        threshold = one.screened.trust.policy.score_threshold
        out: dict[str, tuple[datetime, str]] = {}
        for d in one.deferred:
            signals = [by_id[i] for i in covered_signals(d.candidate, one.context.signals)]
            moments = [moment_of(signal) for signal in signals]
            if not signals or any(m is None for m in moments):
                continue
            first = min(m for m in moments if m is not None)
            retry, why = None, f"deferred (score {d.score:.2f}, under {threshold:.2f})"
            if night and first > wake:
                retry, why = wake, f"{why} at night; considered again at the user's wake, {wake:%H:%M} local"
            elif all(signal.urgency_hint >= s.urgent_threshold for signal in signals):
                steps = [step for signal in signals if (step := better_timed_at(signal, now)) is not None]
                if steps and min(steps) < first:
                    retry = min(steps)
                    why = f"{why}; urgent, considered again when its timing improves ({retry:%H:%M} UTC)"
            if retry is not None:
                out.update(dict.fromkeys((signal.id for signal in signals), (retry.astimezone(UTC), why)))
        return out

    def _already_done(self, one: _Plan, key: str) -> CycleResult:
        return CycleResult(
            user_id=one.screened.user_id,
            cycle_key=key,
            decision="silent",
            reason="already_sent",
            trust_level=one.screened.trust.level,
            llm_called=one.proposed.llm_called,
            prompt_tokens=one.proposed.prompt_tokens,
            completion_tokens=one.proposed.completion_tokens,
        )

    async def _deliver(
        self, tenant: str, plans: list[_Plan], committed: dict[str, CycleResult | PhronesisError], now: datetime
    ) -> None:
        """Deliver the batch's sends together and settle them in one transaction (``outbox``)."""
        attempts: list[Attempt] = []
        for one in plans:
            result = committed.get(one.screened.user_id)
            if not isinstance(result, CycleResult) or result.send_id is None:
                continue
            assert result.decision_id is not None and result.message is not None
            user = one.context.user
            message = Outbound(
                send_id=result.send_id,
                tenant=tenant,
                user_id=user.id,
                address=user.address,
                text=result.message,
                category=result.category or "nudge",
                action_type=result.action_type or "text",
                last_user_message_at=user.last_user_message_at,
                now=now,
            )
            attempts.append(Attempt(tenant, result.send_id, result.decision_id, 1, now, message, user.channel))
        if not attempts:
            return
        settled = await self._p.outbox.deliver_all(attempts, now)
        for attempt, (how, delivery) in zip(attempts, settled, strict=True):
            user_id = attempt.message.user_id
            result = committed[user_id]
            assert isinstance(result, CycleResult)
            if how == "failed":
                update = {"decision": "silent", "reason": "delivery_failed", "delivery": "failed"}
            else:
                update = {"delivery": delivery.format if how == "sent" else "retrying"}
            committed[user_id] = result.model_copy(update=update)

    async def _screen_again(
        self, conn: AsyncConnection, tenant: str, plans: list[_Plan], locked: dict[str, Any]
    ) -> dict[str, BlockReason]:
        """The pre-filter again, under the users' locks, on the sends committed since it first ran:
        everything another cycle can change (the daily cap, the cooldown; quiet hours for a
        signal set that lost its urgent member) is decided on what is true at commit. Two cycles of
        neighbouring slots (the scheduler at 12:04:59, the API at 12:05:01) can both screen before
        either commits: with only the cap re-counted, they would send two non-urgent messages 2 s
        apart through a 30-minute cooldown. An opt-out, a mute or the tenant's pause that
        landed after the screening stops the send the same way, and so does an opt-out of the chosen
        message's category or a suppression a reply caused in the meantime. Set-based: three
        queries for the batch."""
        p = self._p
        now = plans[0].context.now
        ids = [one.screened.user_id for one in plans]
        recent = await p.sends.recent_for(conn, tenant, ids, now - CAP_LOOKBACK)
        suppressed = await p.feedback.suppressions.active(conn, tenant, ids, now)
        paused = await p.controls.paused(conn, tenant)
        out: dict[str, BlockReason] = {}
        for one in plans:
            user_id, state, controls = one.screened.user_id, one.state, locked[one.screened.user_id]
            fresh = replace(
                state,
                signals=one.context.signals,
                recent_sends=recent.get(user_id, []),
                opted_out=bool(controls.opted_out),
                allowed_topics=frozenset(controls.opted_in_topics or ()),
                muted_until=controls.muted_until,
                paused=paused,
            )
            reason = prefilter(fresh, now, self._settings).reason
            if reason is None and one.chosen is not None:
                reason = self._switched_off(one.chosen.candidate, controls, suppressed.get(user_id, frozenset()), now)
            if reason is not None:
                out[user_id] = reason
        return out

    def _switched_off(
        self, candidate: Candidate, controls: Any, suppressed: frozenset[str], now: datetime
    ) -> BlockReason | None:
        """The chosen message's category or topic opted out, or its signal types suppressed, by a
        reply that landed after the screening (urgent messages are not held by a suppression)."""
        if opted_out_by(controls, candidate.trigger_signals, candidate.category, now):
            return "opted_out"
        urgent = candidate.urgency >= self._settings.urgent_threshold
        if topics_of(candidate.category, candidate.trigger_signals) <= suppressed and not urgent:
            return "suppressed"
        return None

    def _probability(self, scored: list[Scored], chosen: Scored | None) -> float:
        """P(this outcome | these scores): exploration is the only randomness (for IPS later)."""
        rate = self._settings.exploration_rate
        band = [c for c in scored if c.verdict in ("explored", "deferred") and c.probability < 1.0]
        if chosen is not None and chosen.verdict == "approved":
            return 1.0
        if chosen is not None:
            # explored: every better band candidate was not explored, this one was
            ahead = [c for c in band if c.score > chosen.score]
            return round(rate * (1 - rate) ** len(ahead), 6)
        return round((1 - rate) ** len(band), 6)

    def _record(
        self,
        tenant: str,
        decision_id: str,
        context: CycleContext,
        proposed: Proposed,
        scored: list[Scored],
        chosen: Scored | None,
        reason: str,
        key: str,
        send_id: str | None,
        probability: float,
        sends_today: int,
    ) -> NewDecisionRecord:
        attributes: dict[str, Any] = {
            "cycle_key": key,
            "threshold": context.trust.policy.score_threshold,
            "candidates": [
                {
                    "message": c.candidate.message[:300],
                    "category": c.candidate.category,
                    "score": c.score,
                    # the composite's parts: what a replay of the weights will rescore
                    "relevance": c.candidate.relevance,
                    "timing": c.candidate.timing,
                    "urgency": c.candidate.urgency,
                    "verdict": c.verdict,
                    "probability": c.probability,
                }
                for c in scored
            ],
            "send_id": send_id,
            "probability": probability,
            "fallback_reason": proposed.fallback_reason,
            "dropped_candidates": proposed.dropped,
        }
        return NewDecisionRecord(
            id=decision_id,
            tenant=tenant,
            kind="proactive",
            subject_id=context.user.id,
            strategy=proposed.path,
            path=proposed.path,
            action="sent" if chosen is not None else "silent",
            confidence=round(chosen.score / 10, 4) if chosen else None,
            # the day's sends before this cycle, as a pre-filter block keeps them: what a replay
            # of the daily cap reads (``replay.proactive_cap``)
            inputs=context.describe() | {"sends_today": sends_today},
            prompt=proposed.prompt,
            raw_llm_output=proposed.raw_output,
            model=proposed.model,
            latency_ms=proposed.latency_ms,
            prompt_tokens=proposed.prompt_tokens,
            completion_tokens=proposed.completion_tokens,
            llm_calls=int(proposed.llm_called),
            reason=reason,
            attributes=attributes,
        )


class _NeverExplore(random.Random):
    """A preview's chance: exploration is never drawn (``random()`` is never below a rate)."""

    def random(self) -> float:
        return 1.0


def _silence(scored: list[Scored]) -> BlockReason:
    """Why a cycle with no sendable candidate stays silent."""
    if not scored:
        return "no_candidates"
    if all(c.verdict in ("duplicate", "suppressed", "opted_out") for c in scored):
        return next(r for r in ("duplicate", "suppressed", "opted_out") if any(c.verdict == r for c in scored))
    return "below_threshold"


def _subjects(recent: list[tuple[str, str]], subjects: dict[str, set[str]]) -> dict[str, frozenset[str]]:
    """Each recent message's subjects, by its text (a text sent twice: both sends' subjects)."""
    out: dict[str, set[str]] = {}
    for send_id, text in recent:
        if send_id in subjects:
            out.setdefault(text, set()).update(subjects[send_id])
    return {text: frozenset(titles) for text, titles in out.items()}


def _lost(screened: Screened, key: str) -> CycleResult:
    """Another run holds or has sent this cycle's slot: nothing decided here, no LLM asked."""
    return CycleResult(
        user_id=screened.user_id,
        cycle_key=key,
        decision="silent",
        reason="already_sent",
        trust_level=screened.trust.level,
        llm_called=False,
    )


def blocked_record(tenant: str, screened: Screened, key: str) -> NewDecisionRecord:
    """A pre-filter block as a decision record (``record_blocked``): no LLM, no effects."""
    return NewDecisionRecord(
        id=new_id(),
        tenant=tenant,
        kind="proactive",
        subject_id=screened.user_id,
        strategy="prefilter",
        path="prefilter",
        action="silent",
        inputs={"trust": screened.trust.info(), "sends_today": screened.sends_today},
        reason=screened.reason,
        llm_calls=0,
        attributes={"cycle_key": key, **screened.detail},
    )
