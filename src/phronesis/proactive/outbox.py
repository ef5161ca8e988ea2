"""Delivery through an outbox: a committed send reaches the channel.

The cycle commits its send (status ``sending``, one attempt, a lease until
``next_attempt_at``) before it delivers. A worker may die between that commit and the delivery;
without the outbox the send would stay ``sending`` for ever: the redelivered task would find the
claim and stop, the message would never be delivered, and it would count toward the cap. So:

- a delivery that ends settles the send here: ``sent``; or, when the channel failed in a way
  worth retrying and attempts and age are left, still ``sending`` with ``next_attempt_at`` after a
  back-off; else ``failed`` (which does not count toward the cap);
- ``Outbox.redeliver`` (each tick, and a beat task) takes every send still ``sending`` whose
  ``next_attempt_at`` has passed: a lease that ran out (its worker died) or a back-off that
  did. It takes each with a compare-and-set on ``next_attempt_at``, so two workers never deliver
  one send at once, and delivers it with the send's id as the channel's idempotency key: a
  receiver that got the first attempt before the worker died can drop the repeat;
- a send past ``outbox_attempts`` or ``outbox_max_age_minutes`` is ``failed``, said once in the
  log and on its decision record.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.backoff import Backoff
from phronesis.clock import Clock
from phronesis.exceptions import NotFoundError
from phronesis.proactive.channels.types import Channel, Delivery, Outbound
from phronesis.proactive.counters import CounterRepository
from phronesis.proactive.sends import SendRepository
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.signals import moment_passed_for, release_undelivered
from phronesis.proactive.users import UserRepository
from phronesis.storage.database import Database

__all__ = ["Outbox", "Settled"]

log = logging.getLogger("phronesis.proactive")

Settled = Literal["sent", "retrying", "failed"]
BATCH = 200
"""Sends taken per pass: the rest wait for the next tick (the oldest first)."""
DELIVERY_CONCURRENCY = 16
"""Deliveries of a batch in flight at once (each an HTTP request to a channel)."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """One committed send on its way to the user's channel."""

    tenant: str
    send_id: str
    decision_id: str | None
    attempts: int
    """Deliveries tried so far, this one included."""
    sent_at: datetime
    message: Outbound
    channel: str


class Outbox:
    def __init__(
        self,
        settings: ProactiveSettings,
        *,
        database: Database,
        sends: SendRepository,
        users: UserRepository,
        channels: dict[str, Channel],
        decisions: DecisionRecordRepository,
        counters: CounterRepository,
        clock: Clock,
    ) -> None:
        self._settings = settings
        # the n-th redelivery waits outbox_retry_sec × 2^(n−1): exact, for the due times it stores;
        # no cap (outbox_attempts bounds it)
        self._backoff = Backoff(initial_s=settings.outbox_retry_sec, cap_s=math.inf, jitter=0.0)
        self._db = database
        self._sends = sends
        self._users = users
        self._channels = channels
        self._decisions = decisions
        self._counters = counters
        self._clock = clock

    def lease_until(self, now: datetime) -> datetime:
        """When a delivery that starts now is taken as abandoned (by the real clock: a chunk's
        cycles may run at their tick's time, minutes ago)."""
        return max(now, self._clock.now()) + timedelta(seconds=self._settings.outbox_lease)

    async def deliver(self, channel_name: str, message: Outbound) -> Delivery:
        channel = self._channels.get(channel_name)
        if channel is None:
            return Delivery("failed", f"channel {channel_name!r} is not configured", 0)
        return await channel.deliver(message)

    async def deliver_all(self, attempts: Sequence[Attempt], now: datetime) -> list[tuple[Settled, Delivery]]:
        """Deliver a batch together (a few at a time) and settle it in one transaction."""
        limit = asyncio.Semaphore(DELIVERY_CONCURRENCY)

        async def one(attempt: Attempt) -> Delivery:
            async with limit:
                return await self.deliver(attempt.channel, attempt.message)

        deliveries = await asyncio.gather(*(one(a) for a in attempts))
        settled = await self.settle(list(zip(attempts, deliveries, strict=True)), now)
        return list(zip(settled, deliveries, strict=True))

    async def settle(self, done: Sequence[tuple[Attempt, Delivery]], now: datetime) -> list[Settled]:
        """Record how deliveries went, in one transaction: sent, to be retried, or failed for good."""
        s = self._settings
        out: list[Settled] = []
        retries: list[tuple[Attempt, Delivery, float]] = []
        finished: list[tuple[Attempt, str, str, str]] = []
        for attempt, delivery in done:
            retry = (
                delivery.status == "failed"
                and delivery.retryable
                and attempt.attempts < s.outbox_attempts
                and now - attempt.sent_at < timedelta(minutes=s.outbox_max_age_minutes)
            )
            if retry:
                retries.append((attempt, delivery, self._backoff.delay(attempt.attempts)))
                out.append("retrying")
                continue
            detail = delivery.detail
            if delivery.status == "failed" and delivery.retryable:
                detail = f"gave up after {attempt.attempts} attempts: {detail}"
            finished.append((attempt, delivery.status, detail, delivery.format))
            out.append("sent" if delivery.status == "sent" else "failed")
        async with self._db.transaction() as conn:
            for attempt, delivery, wait in retries:
                await self._sends.retry_at(
                    conn, attempt.tenant, attempt.send_id, now + timedelta(seconds=wait), detail=delivery.detail
                )
            await self._finish(conn, finished, now)
            counts: dict[str, Counter[str]] = {}
            for (attempt, _), how in zip(done, out, strict=True):
                counts.setdefault(attempt.tenant, Counter())[f"delivery:{how}"] += 1
            for tenant, mine in counts.items():
                await self._counters.bump(conn, tenant, now, mine)
        for attempt, delivery, wait in retries:
            log.warning(
                "proactive message %s to %s/%s not delivered (attempt %d of %d, again in %.0f s): %s",
                attempt.send_id,
                attempt.tenant,
                attempt.message.user_id,
                attempt.attempts,
                s.outbox_attempts,
                wait,
                delivery.detail,
            )
        for attempt, status, detail, _ in finished:
            if status == "failed":
                log.warning(
                    "proactive message %s to %s/%s not delivered: %s",
                    attempt.send_id,
                    attempt.tenant,
                    attempt.message.user_id,
                    detail,
                )
        return out

    async def _finish(
        self, conn: AsyncConnection, finished: Sequence[tuple[Attempt, str, str, str]], now: datetime
    ) -> None:
        """Deliveries that ended (sent or failed): out of the outbox, and on their records."""
        if not finished:
            return
        await self._sends.finish(
            conn,
            [
                {
                    "tenant": attempt.tenant,
                    "id": attempt.send_id,
                    "status": status,
                    "detail": detail,
                    "delivered_at": now if status == "sent" and attempt.attempts > 1 else None,
                }
                for attempt, status, detail, _ in finished
            ],
        )
        failed: dict[str, list[str]] = {}
        for attempt, status, _, _ in finished:
            if status == "failed":
                failed.setdefault(attempt.tenant, []).append(attempt.send_id)
        for tenant, send_ids in failed.items():
            if late := await release_undelivered(conn, tenant, send_ids, self._db.dialect, now):
                await self._counters.bump(conn, tenant, now, {"signal:expired_undelivered": late})
        by_tenant: dict[str, dict[str, tuple[dict[str, Any], tuple[str, str] | None]]] = {}
        for attempt, status, detail, format in finished:
            if attempt.decision_id is None:
                continue
            patch = {
                "delivery": status,
                "delivery_detail": detail,
                "delivery_format": format,
                "delivery_attempts": attempt.attempts,
            }
            outcome = ("silent", "delivery_failed") if status == "failed" else None
            by_tenant.setdefault(attempt.tenant, {})[attempt.decision_id] = (patch, outcome)
        for tenant, patches in by_tenant.items():
            await self._decisions.merge_attributes_many(tenant, patches, connection=conn)

    async def redeliver(self, tenant: str | None = None) -> dict[str, int]:
        """Deliver every send whose lease or back-off ran out; counts by how each ended."""
        s = self._settings
        now = self._clock.now()
        counts: dict[str, int] = {}
        async with self._db.connect() as conn:
            due = await self._sends.outbox_due(
                conn, now, tenant, stale_before=now - timedelta(seconds=s.outbox_lease), limit=BATCH
            )
        for row in due:
            ended = await self._one(row, now)
            if ended is not None:
                counts[ended] = counts.get(ended, 0) + 1
        return counts

    async def _one(self, row: Any, now: datetime) -> Settled | None:
        s = self._settings
        attempts = int(row.attempts or 0)
        reason = None
        if now - row.sent_at >= timedelta(minutes=s.outbox_max_age_minutes):
            reason = f"expired: not delivered within {s.outbox_max_age_minutes:g} min"
        elif attempts >= s.outbox_attempts:
            reason = f"gave up after {attempts} attempts"
        else:
            async with self._db.connect() as conn:
                passed = await moment_passed_for(conn, row.tenant, row.id, now)
            if passed is not None:  # a message about an event is never delivered after it
                reason = f"expired: its moment ({passed:%Y-%m-%d %H:%M} UTC) passed before it could be delivered"
        if reason is not None:
            attempt = Attempt(
                row.tenant, row.id, row.decision_id, attempts, row.sent_at, _outbound(row, None, now), row.channel
            )
            async with self._db.transaction() as conn:
                taken = await self._sends.take(
                    conn, row.tenant, row.id, row.next_attempt_at, self.lease_until(now), attempts
                )
            if not taken:
                return None  # another worker has it
            [settled] = await self.settle([(attempt, Delivery("failed", reason, attempts))], now)  # not retryable
            return settled
        async with self._db.transaction() as conn:
            if not await self._sends.take(
                conn, row.tenant, row.id, row.next_attempt_at, self.lease_until(now), attempts + 1
            ):
                return None
        try:
            user = await self._users.get(row.tenant, row.user_id)
        except NotFoundError:
            return None  # deleted with their sends meanwhile
        message = _outbound(row, user, now)
        attempt = Attempt(row.tenant, row.id, row.decision_id, attempts + 1, row.sent_at, message, row.channel)
        log.info("proactive message %s to %s/%s: delivery %d", row.id, row.tenant, row.user_id, attempts + 1)
        [(settled, _)] = await self.deliver_all([attempt], now)
        return settled


def _outbound(row: Any, user: Any, now: datetime) -> Outbound:
    return Outbound(
        send_id=row.id,
        tenant=row.tenant,
        user_id=row.user_id,
        address=user.address if user is not None else None,
        text=row.message,
        category=row.category,
        action_type=row.action_type,
        last_user_message_at=user.last_user_message_at if user is not None else None,
        now=now,
    )
