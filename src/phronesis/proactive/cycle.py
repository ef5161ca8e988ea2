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
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.proactive.candidates import CandidateSource, Proposed, covered_signals
from phronesis.proactive.channels.types import Outbound
from phronesis.proactive.context import CycleContext
from phronesis.proactive.controls import TenantControls
from phronesis.proactive.feedback import FeedbackLoop
from phronesis.proactive.insights import InsightRepository
from phronesis.proactive.models import BlockReason, CandidatePreview, CycleResult, Preview
from phronesis.proactive.outbox import Attempt, Outbox
from phronesis.proactive.prefilter import Screened, UserState, prefilter
from phronesis.proactive.scoring import Scored, score_candidates
from phronesis.proactive.sends import SendRepository
from phronesis.proactive.signals import SignalRepository
from phronesis.proactive.state import CAP_LOOKBACK, zone
from phronesis.proactive.users import UserRepository
from phronesis.settings import ProactiveSettings
from phronesis.storage.database import Database

__all__ = ["CycleParts", "CycleRunner", "cycle_key"]

log = logging.getLogger("phronesis.proactive")


def cycle_key(now: datetime, minutes: float) -> str:
    """The scheduler slot ``now`` falls in: every run for a user in one slot is the same cycle."""
    return f"c{int(now.timestamp() // (minutes * 60))}"


class _AlreadyDone(Exception):
    """Another worker ran this user's cycle first: roll back, send nothing."""


@dataclass(frozen=True, slots=True)
class CycleParts:
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


class CycleRunner:
    def __init__(self, settings: ProactiveSettings, parts: CycleParts, rng: random.Random) -> None:
        self._settings = settings
        self._p = parts
        self._rng = rng

    async def _context(self, tenant: str, screened: Screened, now: datetime) -> CycleContext:
        p, s = self._p, self._settings
        async with p.database.connect() as conn:
            user = await p.users.get(tenant, screened.user_id, connection=conn)
            since = now - timedelta(hours=s.dedup_window_hours)
            recent = await p.sends.recent_messages(conn, tenant, user.id, s.recent_messages, since=since)
            deferred = await p.insights.fresh(conn, tenant, user.id, now, 10)
            feedback = await p.feedback.summary(conn, tenant, user.id, now)
        return CycleContext(
            user=user,
            trust=screened.trust,
            signals=screened.signals,
            recent_messages=recent,
            deferred=deferred,
            feedback=feedback,
            feedback_days=s.feedback_days,
            local_time=now.astimezone(zone(user.timezone)),
            now=now,
        )

    async def preview(
        self, tenant: str, screened: Screened, now: datetime, *, candidates: CandidateSource | None = None
    ) -> Preview:
        """The cycle's decision without its effects (issue 24): context, candidates and scores as
        ``run`` makes them, then nothing is committed, consumed, sent or recorded. Exploration is
        not drawn: a candidate in the band shows the chance it had."""
        s = self._settings
        context = await self._context(tenant, screened, now)
        proposed = await (candidates or self._p.candidates).propose(context)
        scored = score_candidates(
            proposed.candidates,
            threshold=screened.trust.policy.score_threshold,
            recent_messages=context.recent_messages,
            suppressed=frozenset(context.feedback.suppressed_categories),
            settings=s,
            rng=_NeverExplore(),
            opted_out=frozenset(context.user.opted_out_categories),
        )
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
        s, p = self._settings, self._p
        key = cycle_key(now, s.cycle_minutes)
        context = await self._context(tenant, screened, now)
        proposed = await p.candidates.propose(context)
        scored = score_candidates(
            proposed.candidates,
            threshold=screened.trust.policy.score_threshold,
            recent_messages=context.recent_messages,
            suppressed=frozenset(context.feedback.suppressed_categories),
            settings=s,
            rng=self._rng,
            opted_out=frozenset(context.user.opted_out_categories),
        )
        chosen = next((c for c in scored if c.sendable), None)
        deferred = [c for c in scored if c.verdict == "deferred"]
        try:
            async with p.database.transaction() as conn:
                result = await self._commit(conn, tenant, context, state, proposed, scored, chosen, deferred, key)
        except _AlreadyDone:
            return CycleResult(
                user_id=screened.user_id,
                cycle_key=key,
                decision="silent",
                reason="already_sent",
                trust_level=screened.trust.level,
                llm_called=proposed.llm_called,
                prompt_tokens=proposed.prompt_tokens,
                completion_tokens=proposed.completion_tokens,
            )
        if result.send_id is None:
            return result
        assert result.decision_id is not None and result.message is not None
        user = context.user
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
        delivery = await p.outbox.deliver(user.channel, message)
        settled = await p.outbox.settle(
            Attempt(tenant, result.send_id, result.decision_id, 1, now, message), delivery, now
        )
        if settled == "failed":
            return result.model_copy(update={"decision": "silent", "reason": "delivery_failed", "delivery": "failed"})
        return result.model_copy(update={"delivery": delivery.format if settled == "sent" else "retrying"})

    async def _commit(
        self,
        conn: AsyncConnection,
        tenant: str,
        context: CycleContext,
        state: UserState,
        proposed: Proposed,
        scored: list[Scored],
        chosen: Scored | None,
        deferred: list[Scored],
        key: str,
    ) -> CycleResult:
        s, p, now = self._settings, self._p, context.now
        user = context.user
        if not await p.users.lock(conn, tenant, user.id) or await p.sends.claimed(conn, tenant, user.id, key):
            raise _AlreadyDone
        blocked = None if chosen is None else await self._screen_again(conn, tenant, context, state, chosen)
        waiting = _waiting(context, scored, chosen)
        signal_ids = [sig.id for sig in context.signals if sig.id not in waiting]
        if blocked is None and signal_ids and await p.signals.consume(conn, tenant, signal_ids, now, key) == 0:
            raise _AlreadyDone  # another worker consumed them in this very cycle
        reason: str
        if blocked is not None:  # like the pre-filter's blocks: the signals wait for their turn
            chosen, reason, deferred = None, blocked, []
        elif chosen is not None:
            reason = "explored" if chosen.verdict == "explored" else "sent"
        else:
            reason = _silence(scored)
        await p.insights.save(
            conn,
            [
                {
                    "tenant": tenant,
                    "id": uuid.uuid4().hex,
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
                for d in deferred
            ],
        )
        send_id = uuid.uuid4().hex if chosen is not None else None
        decision_id = uuid.uuid4().hex
        channel = user.channel
        probability = self._probability(scored, chosen)
        if chosen is not None and send_id is not None:
            claimed = await p.sends.claim(
                conn,
                {
                    "tenant": tenant,
                    "id": send_id,
                    "user_id": user.id,
                    "cycle_key": key,
                    "message": chosen.candidate.message,
                    "category": chosen.candidate.category,
                    "trigger_signals": chosen.candidate.trigger_signals,
                    "action_type": chosen.candidate.action_type,
                    "channel": channel,
                    "score": chosen.score,
                    "probability": probability,
                    "delivery_status": "sending",
                    "delivery_detail": None,
                    "sent_at": now,
                    "outcome": "pending",
                    "response_latency_seconds": None,
                    "outcome_at": None,
                    "attempts": 1,
                    "next_attempt_at": p.outbox.lease_until(now),
                    "decision_id": decision_id,
                },
            )
            if not claimed:
                raise _AlreadyDone
        await p.decisions.add(
            self._record(tenant, decision_id, context, proposed, scored, chosen, reason, key, send_id, probability),
            connection=conn,
        )
        return CycleResult(
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
            channel=channel if chosen else None,
            deferred=len(deferred),
            signals=[sig.type for sig in context.signals],
            decision_id=decision_id,
            prompt_tokens=proposed.prompt_tokens,
            completion_tokens=proposed.completion_tokens,
        )

    async def _screen_again(
        self, conn: AsyncConnection, tenant: str, context: CycleContext, state: UserState, chosen: Scored
    ) -> BlockReason | None:
        """The pre-filter again, under the user's lock, on the sends committed since it first ran:
        everything another cycle can change (the daily cap, the cooldown; quiet hours for a
        signal set that lost its urgent member) is decided on what is true at commit. Two cycles of
        neighbouring slots (the scheduler at 12:04:59, the API at 12:05:01) both screened before
        either committed, and sent two non-urgent messages 2 s apart through a 30-minute cooldown
        (issue 24); only the cap was re-counted. An opt-out, a mute or the tenant's pause that
        landed after the screening stops the send the same way, and so does an opt-out of the chosen
        message's category or a suppression a reply caused in the meantime."""
        user, now, p = context.user, context.now, self._p
        recent = (await p.sends.recent_for(conn, tenant, [user.id], now - CAP_LOOKBACK)).get(user.id, [])
        controls = await p.users.controls(conn, tenant, user.id)
        fresh = UserState(
            user.id,
            state.zone,
            state.sleep,
            state.wake,
            state.trust,
            context.signals,
            recent,
            state.ignored_types,
            opted_out=bool(controls and controls.opted_out),
            muted_until=controls.muted_until if controls else None,
            paused=await p.controls.paused(conn, tenant),
        )
        reason = prefilter(fresh, now, self._settings).reason
        if reason is not None:
            return reason
        category = chosen.candidate.category
        if controls is not None and category in (controls.opted_out_categories or ()):
            return "opted_out"
        if category in (await p.feedback.suppressions.active(conn, tenant, [user.id], now)).get(user.id, ()):
            return "suppressed"  # a reply in the meantime switched the category off
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
    ) -> NewDecisionRecord:
        attributes: dict[str, Any] = {
            "cycle_key": key,
            "threshold": context.trust.policy.score_threshold,
            "candidates": [
                {
                    "message": c.candidate.message[:300],
                    "category": c.candidate.category,
                    "score": c.score,
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
            inputs=context.describe(),
            prompt=proposed.prompt,
            raw_llm_output=proposed.raw_output,
            model=proposed.model,
            latency_ms=proposed.latency_ms,
            prompt_tokens=proposed.prompt_tokens,
            completion_tokens=proposed.completion_tokens,
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


def _waiting(context: CycleContext, scored: list[Scored], chosen: Scored | None) -> set[str]:
    """Signals left pending for the next cycle: those an approved candidate speaks for that was not
    sent (one message per cycle), unless the sent one speaks for them too. Before, a cycle used
    every signal it read: of two urgent deadlines one was sent and the other never was (issue 24:
    "Problem set 4" never reached Maya in the demo)."""
    if chosen is None:
        return set()
    unsent = [c for c in scored if c.sendable and c is not chosen]
    waiting = set().union(*(covered_signals(c.candidate, context.signals) for c in unsent))
    return waiting - covered_signals(chosen.candidate, context.signals)


def blocked_record(tenant: str, screened: Screened, key: str) -> NewDecisionRecord:
    """A pre-filter block as a decision record (``record_blocked``): no LLM, no effects."""
    return NewDecisionRecord(
        id=uuid.uuid4().hex,
        tenant=tenant,
        kind="proactive",
        subject_id=screened.user_id,
        strategy="prefilter",
        path="prefilter",
        action="silent",
        inputs={"trust": screened.trust.info(), "sends_today": screened.sends_today},
        reason=screened.reason,
        attributes={"cycle_key": key},
    )
