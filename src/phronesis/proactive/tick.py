"""One scheduler pass: every due user's cycle, set-based through the pre-filter.

Per chunk of ``tick_chunk`` users: a keyset read of due users, three reads of their state,
the pre-filter as a loop in memory, then the full cycle only for those who passed (a few
at a time, since each may call the LLM). Feedback that timed out is swept first.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.clock import Clock
from phronesis.exceptions import PhronesisError
from phronesis.proactive.candidates import CandidateSource
from phronesis.proactive.counters import CounterRepository
from phronesis.proactive.fates import waiting
from phronesis.proactive.feedback import FeedbackLoop
from phronesis.proactive.models import CycleResult, Preview, TickReport
from phronesis.proactive.outbox import Outbox
from phronesis.proactive.prefilter import Screened, UserState, prefilter, sends_today
from phronesis.proactive.sends import SendRepository
from phronesis.proactive.service import ProactiveService, blocked_record, cycle_key
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.signals import SignalRepository
from phronesis.proactive.state import StateLoader
from phronesis.storage.database import Database

__all__ = ["Ticker"]

log = logging.getLogger("phronesis.proactive")

MAX_RESULTS = 1000
CYCLE_BATCH = 100
"""Passed users whose cycles commit in one transaction (their locks held together for it)."""


def blocked_result(screened: Screened, key: str) -> CycleResult:
    assert screened.reason is not None
    return CycleResult(
        user_id=screened.user_id,
        cycle_key=key,
        decision="silent",
        reason=screened.reason,
        trust_level=screened.trust.level,
    )


def _counts(results: list[CycleResult]) -> Counter[str]:
    """The counters these cycles add (``proactive.counters``)."""
    counts: Counter[str] = Counter()
    for result in results:
        counts[f"cycle:{result.reason}"] += 1
        counts["llm_calls"] += result.llm_called
        counts["prompt_tokens"] += result.prompt_tokens or 0
        counts["completion_tokens"] += result.completion_tokens or 0
    return counts


class Ticker:
    def __init__(
        self,
        settings: ProactiveSettings,
        *,
        database: Database,
        loader: StateLoader,
        signals: SignalRepository,
        sends: SendRepository,
        feedback: FeedbackLoop,
        runner: ProactiveService,
        outbox: Outbox,
        counters: CounterRepository,
        decisions: DecisionRecordRepository,
        clock: Clock,
    ) -> None:
        self._settings = settings
        self._db = database
        self._loader = loader
        self._signals = signals
        self._sends = sends
        self._feedback = feedback
        self._runner = runner
        self._outbox = outbox
        self._counters = counters
        self._decisions = decisions
        self._clock = clock

    async def sweep(self, tenant: str, now: datetime) -> int:
        """Seed 004 §5: sends with no reply after the ignore timeout become ``ignored``."""
        before = now - timedelta(minutes=self._settings.ignore_timeout_minutes)
        async with self._db.transaction() as conn:
            users = await self._sends.users_to_expire(conn, tenant, before)
            if not users:
                return 0
            expired = await self._sends.expire_pending(conn, tenant, before, now)
            await self._counters.bump(conn, tenant, now, {"feedback:ignored": expired})
            for user_id in users:
                await self._feedback.refresh(conn, tenant, user_id, now)
        return expired

    async def screen(self, tenant: str, user_ids: Sequence[str], now: datetime) -> list[tuple[Screened, UserState]]:
        async with self._db.connect() as conn:
            states = await self._loader.load(conn, tenant, user_ids, now)
        return [(prefilter(state, now, self._settings), state) for state in states]

    async def run_one(self, tenant: str, user_id: str) -> CycleResult | None:
        """A cycle for one user now, whatever their signals; None when the user does not exist."""
        now = self._clock.now()
        screened = await self.screen(tenant, [user_id], now)
        if not screened:
            return None
        result = await self._decide(tenant, screened[0], now, cycle_key(now, self._settings.cycle_minutes))
        async with self._db.transaction() as conn:
            await self._counters.bump(conn, tenant, now, _counts([result]))
        return result

    async def preview(
        self, tenant: str, user_id: str, at: datetime, *, candidates: CandidateSource | None = None
    ) -> Preview | None:
        """What a cycle would decide for the user at ``at``, with nothing written; None: no such user.

        As a cycle at ``at`` would see it: sends made and signals stored after ``at`` do not count
        (a preview of this morning), and a send already claimed in ``at``'s slot makes it ``already_sent``, as the
        cycle's commit would (else the preview says "would send" where the cycle says no)."""
        async with self._db.connect() as conn:
            states = await self._loader.load(conn, tenant, [user_id], at)
            if not states:
                return None
            state = replace(
                states[0],
                recent_sends=[sent for sent in states[0].recent_sends if sent <= at],
                signals=[signal for signal in states[0].signals if signal.created_at <= at],  # not yet known at ``at``
            )
            first = prefilter(state, at, self._settings)
            reason = first.reason
            if reason is None and await self._sends.claimed(
                conn, tenant, [user_id], cycle_key(at, self._settings.cycle_minutes)
            ):
                reason = "already_sent"
        count = sends_today(state, at, self._settings.daily_cap_day)
        if reason is None:
            return await self._runner.preview(tenant, first, at, candidates=candidates)
        return Preview(
            user_id=user_id,
            at=at,
            decision="silent",
            reason=reason,
            trust_level=first.trust.level,
            threshold=first.trust.policy.score_threshold,
            sends_today=count,
            signals=[],
        )

    async def _note_waits(self, conn: AsyncConnection, tenant: str, blocked: Sequence[Screened]) -> None:
        """Keep on each blocked user's pending signals why they wait (``fates.waiting``)."""
        reasons = {s.user_id: why for s in blocked if (why := waiting(s.reason or "")) is not None}
        if reasons:
            await self._signals.note_waits(conn, tenant, reasons)

    async def _decide(self, tenant: str, pair: tuple[Screened, UserState], now: datetime, key: str) -> CycleResult:
        screened, state = pair
        if not screened.passed:
            async with self._db.transaction() as conn:
                await self._note_waits(conn, tenant, [screened])
                if self._settings.record_blocked:
                    await self._decisions.write(blocked_record(tenant, screened, key), into=conn)
            return blocked_result(screened, key)
        return await self._runner.run(tenant, screened, state, now)

    async def _tenants(self, now: datetime) -> list[str]:
        async with self._db.connect() as conn:
            with_signals = await self._signals.tenants_with_pending(conn, now)
            with_feedback = await self._sends.tenants_with_pending(conn)
            in_outbox = await self._sends.tenants_sending(conn)
        return sorted(set(with_signals) | set(with_feedback) | set(in_outbox))

    async def plan(self, now: datetime) -> list[tuple[str, list[str]]]:
        """For a distributed tick: sweep feedback, then every tenant's due users in chunks (one task each)."""
        chunks: list[tuple[str, list[str]]] = []
        for tenant in await self._tenants(now):
            await self.sweep(tenant, now)
            async for ids in self.due_chunks(tenant, now, None):
                chunks.append((tenant, ids))
        return chunks

    async def tick(
        self,
        tenant: str | None = None,
        *,
        user_ids: Sequence[str] | None = None,
        now: datetime | None = None,
        sweep: bool = True,
    ) -> TickReport:
        """``now``: the scheduler's tick time (a chunk run later by a worker keeps its tick's cycle)."""
        started = time.perf_counter()
        now = now or self._clock.now()
        key = cycle_key(now, self._settings.cycle_minutes)
        tenants = [tenant] if tenant is not None else await self._tenants(now)
        reasons: Counter[str] = Counter()
        results: list[CycleResult] = []
        users = llm_calls = expired = 0
        redelivered: Counter[str] = Counter()
        for t in tenants:
            if sweep:  # the tick's own housekeeping (a Celery chunk leaves it to beat's tasks)
                expired += await self.sweep(t, now)
                redelivered.update(await self._outbox.redeliver(t))
            async for ids in self.due_chunks(t, now, user_ids):
                screened = await self.screen(t, ids, now)
                users += len(screened)
                blocked = [s for s, _ in screened if not s.passed]
                for s in blocked:
                    reasons[s.reason or ""] += 1
                if blocked and self._settings.record_blocked:
                    async with self._db.transaction() as conn:
                        await self._decisions.write(*(blocked_record(t, s, key) for s in blocked), into=conn)
                passed = [pair for pair in screened if pair[0].passed]
                ran: list[CycleResult | PhronesisError] = []
                for start in range(0, len(passed), CYCLE_BATCH):
                    ran += await self._runner.run_many(t, passed[start : start + CYCLE_BATCH], now)
                async with self._db.transaction() as conn:  # one statement per name for the chunk
                    await self._note_waits(conn, t, blocked)
                    chunk = _counts(
                        [blocked_result(s, key) for s in blocked] + [r for r in ran if isinstance(r, CycleResult)]
                    )
                    chunk["cycle:error"] += sum(1 for r in ran if not isinstance(r, CycleResult))
                    await self._counters.bump(conn, t, now, chunk)
                for result in ran:
                    if not isinstance(result, CycleResult):
                        reasons["error"] += 1
                        continue
                    reasons[result.reason] += 1
                    llm_calls += result.llm_called
                    if len(results) < MAX_RESULTS:
                        results.append(result)
        return TickReport(
            cycle_key=key,
            tenants=len(tenants),
            users=users,
            reasons=dict(sorted(reasons.items())),
            sent=reasons["sent"] + reasons["explored"],
            llm_calls=llm_calls,
            decided_without_llm=round(1 - llm_calls / users, 4) if users else None,
            feedback_expired=expired,
            redelivered=dict(redelivered),
            elapsed_ms=round((time.perf_counter() - started) * 1000, 1),
            results=results,
        )

    async def due_chunks(self, tenant: str, now: datetime, user_ids: Sequence[str] | None) -> AsyncIterator[list[str]]:
        """Successive chunks of due users (keyset pages over the signals index), or of the given users."""
        size = self._settings.tick_chunk
        if user_ids is not None:
            for start in range(0, len(user_ids), size):
                yield list(user_ids[start : start + size])
            return
        after = ""
        while True:
            async with self._db.connect() as conn:
                ids = await self._signals.due_users(conn, tenant, now, after=after, limit=size)
            if not ids:
                return
            yield ids
            after = ids[-1]
