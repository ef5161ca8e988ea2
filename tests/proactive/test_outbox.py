"""Issue 24, item 2: a committed send reaches the channel, or ends ``failed``; never stuck.

On SQLite and PostgreSQL. The process-level case (a Celery worker killed with SIGKILL between
the commit and the delivery) is in ``test_celery.py``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.proactive.channels.types import Delivery, Outbound
from phronesis.proactive.models import SignalIn, UserMessageIn
from phronesis.proactive.module import ProactiveModule
from phronesis.storage.database import Database
from phronesis.testing import FixedClock, RecordingChannel
from tests.proactive.conftest import AWAKE, deadline

FAST = {"outbox_retry_sec": 60, "outbox_lease_sec": 120, "delivery_attempts": 1, "delivery_timeout_sec": 10}


async def _send_row(proactive: ProactiveModule, send_id: str) -> Any:
    [row] = await proactive.feedback_for("t", "ana", ids=[send_id])
    return row


async def _record(database: Database, clock: FixedClock, decision_id: str) -> Any:
    return await DecisionRecordRepository(database, clock=clock).get("t", decision_id)


async def test_a_channel_that_is_down_gets_the_send_again_until_it_takes_it(
    make: Callable[..., ProactiveModule], clock: FixedClock, database: Database
) -> None:
    channel = RecordingChannel(failures=2, retryable=True)
    proactive = make(channel_=channel, **FAST)
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.add_signals("t", "ana", [deadline(9)])
    result = await proactive.run_cycle("t", "ana")
    assert (result.decision, result.delivery) == ("sent", "retrying")
    assert (await _send_row(proactive, result.send_id or "")).delivery_status == "sending"
    clock.advance(seconds=30)
    assert (await proactive.tick("t")).redelivered == {}  # its back-off has not run out
    clock.advance(seconds=31)
    assert (await proactive.tick("t")).redelivered == {"retrying": 1}  # down again: 120 s now
    clock.advance(seconds=121)
    assert (await proactive.tick("t")).redelivered == {"sent": 1}
    assert [m.send_id for m in channel.attempts] == [result.send_id] * 3  # one idempotency key
    assert len(channel.sent) == 1
    row = await _send_row(proactive, result.send_id or "")
    assert (row.delivery_status, row.sent_at) == ("sent", clock.now())  # the cap counts from delivery
    record = await _record(database, clock, result.decision_id or "")
    assert (record.action, record.attributes["delivery"], record.attributes["delivery_attempts"]) == ("sent", "sent", 3)


async def test_a_send_that_never_gets_through_fails_and_frees_its_place_in_the_cap(
    make: Callable[..., ProactiveModule], clock: FixedClock, database: Database
) -> None:
    channel = RecordingChannel(failures=3, retryable=True)
    proactive = make(channel_=channel, outbox_attempts=3, cooldown_minutes=0, **FAST)
    await proactive.put_user("t", "ana", AWAKE.model_copy(update={"interaction_count": 0}))  # a new user: cap 2
    await proactive.add_signals("t", "ana", [deadline(9)])
    first = await proactive.run_cycle("t", "ana")
    for wait in (61, 121):
        clock.advance(seconds=wait)
        await proactive.tick("t")
    row = await _send_row(proactive, first.send_id or "")
    assert row.delivery_status == "failed"
    record = await _record(database, clock, first.decision_id or "")
    assert (record.action, record.reason) == ("silent", "delivery_failed")
    assert "gave up after 3 attempts" in record.attributes["delivery_detail"]
    for n in range(2):  # the failed send does not use up one of the new user's two
        clock.advance(minutes=6)
        await proactive.add_signals("t", "ana", [deadline(9, f"k{n}", title=f"Quiz {n}")])
        assert (await proactive.run_cycle("t", "ana")).delivery == "text"
    assert len(channel.sent) == 2
    clock.advance(minutes=200)  # past the ignore timeout of every send
    assert (await proactive.tick("t")).feedback_expired == 2  # the two delivered ones
    assert (await _send_row(proactive, first.send_id or "")).outcome == "pending"  # never reached ana
    assert (await _record(database, clock, first.decision_id or "")).outcome is None


async def test_a_send_too_old_to_matter_expires_instead_of_arriving_late(
    make: Callable[..., ProactiveModule], clock: FixedClock
) -> None:
    channel = RecordingChannel(failures=1, retryable=True)
    proactive = make(channel_=channel, outbox_max_age_minutes=30, **FAST | {"outbox_retry_sec": 3600})
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.add_signals("t", "ana", [deadline(9)])
    result = await proactive.run_cycle("t", "ana")
    clock.advance(minutes=61)
    assert (await proactive.tick("t")).redelivered == {"failed": 1}
    row = await _send_row(proactive, result.send_id or "")
    assert row.delivery_status == "failed" and channel.sent == []
    # its signal was not told: past its moment it ends expired, saying why (never "sent")
    [signal] = (await proactive.list_signals("t", "ana")).items
    assert signal.outcome == "expired" and "never delivered" in (signal.outcome_reason or "")
    # and counted where operators look (/metrics: phronesis_proactive_events{name=...})
    [day] = (await proactive.stats("t", days=1)).values()
    assert day.get("signal:expired_undelivered") == 1


async def test_a_failure_not_worth_retrying_fails_at_once(make: Callable[..., ProactiveModule]) -> None:
    proactive = make(channel_=RecordingChannel(fail=True), **FAST)  # a 4xx: the request itself is wrong
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.add_signals("t", "ana", [deadline(9)])
    result = await proactive.run_cycle("t", "ana")
    assert (result.decision, result.reason) == ("silent", "delivery_failed")


class _Killed(Exception):
    """The process died (a real SIGKILL is in ``test_celery.py``)."""


class _Dies:
    """A channel whose process dies mid-delivery: the error escapes the cycle (as a kill would)."""

    name = "console"

    def __init__(self) -> None:
        self.dead = True
        self.sent: list[Outbound] = []

    async def deliver(self, message: Outbound) -> Delivery:
        if self.dead:
            raise _Killed
        self.sent.append(message)
        return Delivery("sent", "recorded", 1)


async def _abandoned(make: Callable[..., ProactiveModule], channel: _Dies) -> ProactiveModule:
    """A module whose cycle committed ana's send and died delivering it."""
    proactive = make(channel_=channel, **FAST)
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.add_signals("t", "ana", [deadline(9)])
    with pytest.raises(_Killed):
        await proactive.run_cycle("t", "ana")
    channel.dead = False
    return proactive


async def test_a_send_abandoned_after_its_commit_is_delivered_once_its_lease_runs_out(
    make: Callable[..., ProactiveModule], clock: FixedClock
) -> None:
    """Before, the send stayed ``sending`` for ever: never delivered, counted toward the cap."""
    channel = _Dies()
    proactive = await _abandoned(make, channel)
    [row] = (await proactive.list_feedback("t")).items
    assert row.delivery_status == "sending"
    clock.advance(seconds=60)
    assert (await proactive.tick("t")).redelivered == {}  # its delivery may still be in flight
    clock.advance(seconds=61)
    assert (await proactive.tick("t")).redelivered == {"sent": 1}
    assert [m.send_id for m in channel.sent] == [row.id]
    assert (await proactive.tick("t")).redelivered == {}


async def test_two_workers_never_deliver_one_abandoned_send_twice(
    make: Callable[..., ProactiveModule], clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both read the send as due before either takes it; the compare-and-set on its lease lets
    one deliver. Fails with ``take`` always succeeding."""
    channel = _Dies()
    proactive = await _abandoned(make, channel)
    clock.advance(seconds=121)
    other = make(channel_=channel, **FAST)
    both_read = asyncio.Barrier(2)
    for module in (proactive, other):
        due = module.sends.outbox_due

        async def read_then_wait(*args: Any, _due: Any = due, **kwargs: Any) -> Any:
            rows = await _due(*args, **kwargs)
            await both_read.wait()
            return rows

        monkeypatch.setattr(module.sends, "outbox_due", read_then_wait)
    results = await asyncio.gather(proactive.redeliver("t"), other.redeliver("t"))
    assert sorted(map(str, results)) == ["{'sent': 1}", "{}"]
    assert len(channel.sent) == 1


class HeldChannel(RecordingChannel):
    """Delivers once ``release`` is set; ``delivering`` says a delivery is under way: the gap in
    which a webhook has put the message in front of the user and not yet answered us."""

    def __init__(self, *, failures: int | None = None) -> None:
        super().__init__(failures=failures, retryable=True)
        self.delivering = asyncio.Event()
        self.release = asyncio.Event()

    async def deliver(self, message: Outbound) -> Delivery:
        self.delivering.set()
        await self.release.wait()
        return await super().deliver(message)


async def test_a_reply_while_the_delivery_is_in_flight_answers_that_send(
    make: Callable[..., ProactiveModule], clock: FixedClock
) -> None:
    """A race the clean-clone run caught: the reply came before the channel's answer, found no
    delivered send to answer, and the send was counted ignored three hours later."""
    channel = HeldChannel()
    proactive = make(channel_=channel, **FAST)
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.add_signals("t", "ana", [deadline(9)])
    cycle = asyncio.create_task(proactive.run_cycle("t", "ana"))
    await asyncio.wait_for(channel.delivering.wait(), 30)
    clock.advance(seconds=20)
    reply = await proactive.on_message("t", "ana", UserMessageIn(text="on it, thanks!"))
    channel.release.set()
    result = await cycle
    assert (result.decision, result.delivery) == ("sent", "text")
    assert [(f.id, f.outcome, f.response_latency_seconds) for f in reply.feedback] == [
        (result.send_id, "engaged", 20.0)
    ]
    clock.advance(minutes=200)
    assert (await proactive.tick("t")).feedback_expired == 0
    row = await _send_row(proactive, result.send_id or "")
    assert (row.delivery_status, row.outcome) == ("sent", "engaged")


async def test_a_reply_while_a_send_waits_for_its_retry_does_not_answer_it(
    make: Callable[..., ProactiveModule], clock: FixedClock
) -> None:
    """The other side of the same rule: a send whose delivery failed has not reached the user."""
    channel = HeldChannel(failures=1)
    channel.release.set()
    proactive = make(channel_=channel, **FAST)
    await proactive.put_user("t", "ana", AWAKE)
    await proactive.add_signals("t", "ana", [deadline(9)])
    result = await proactive.run_cycle("t", "ana")
    assert result.delivery == "retrying"
    clock.advance(seconds=10)
    assert (await proactive.on_message("t", "ana", UserMessageIn(text="hi"))).feedback == []
    clock.advance(seconds=51)
    assert (await proactive.tick("t")).redelivered == {"sent": 1}
    clock.advance(seconds=30)
    [answered] = (await proactive.on_message("t", "ana", UserMessageIn(text="thanks"))).feedback
    assert (answered.id, answered.outcome, answered.response_latency_seconds) == (result.send_id, "engaged", 30.0)


async def test_a_message_about_an_event_is_never_delivered_after_it(
    make: Callable[..., ProactiveModule], clock: FixedClock
) -> None:
    """Issue 48, item 5: the outbox retried "Dentist in 3 minutes" after the appointment (its
    only limits were attempts and an hour of age). Past the event's moment it fails instead, and
    the signal ends expired, saying its message was never delivered."""
    channel = RecordingChannel(failures=2, retryable=True)
    proactive = make(channel_=channel, **FAST)
    await proactive.put_user("t", "ana", AWAKE)
    start = clock.now() + timedelta(minutes=3)
    data = {"title": "Dentist", "start": start.isoformat()}
    dentist = SignalIn(type="calendar_event_approaching", urgency_hint=9, data=data)
    await proactive.add_signals("t", "ana", [dentist])
    result = await proactive.run_cycle("t", "ana")
    assert result.delivery == "retrying"
    clock.advance(minutes=4)  # the channel is back, the appointment has begun
    assert (await proactive.tick("t")).redelivered == {"failed": 1}
    assert channel.sent == []
    row = await _send_row(proactive, result.send_id or "")
    assert row.delivery_status == "failed" and "passed before it could be delivered" in (row.delivery_detail or "")
    [signal] = (await proactive.list_signals("t", "ana")).items
    assert signal.outcome == "expired" and "never delivered" in (signal.outcome_reason or "")
