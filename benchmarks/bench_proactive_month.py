"""A simulated month of proactive decisions (issue 48): is every signal accounted for, and told in time?

Seeded, documented population (``--users``, default 200; ``--days``, default 30):

- six time zones (Sydney, Singapore, Kolkata, Berlin, New York, Los Angeles), quiet hours 23:00–07:00
  local (one user in six sleeps by day, 09:00–17:00: night shifts);
- trust from new to deep (relationship 0–300 days, 0–600 messages);
- about three signals a user a day at random moments: deadlines, bills, calendar events, deliveries,
  birthdays, alerts; urgency 3–9 (a fifth at 8 or more); each due 30 minutes to 36 hours after it
  arrives and expiring then;
- replies to half the messages ("thanks", "ok"), pushback to one in twenty, "stop" to one in 400
  and a button press to one in eight button prompts;
- the channel down for 40 minutes every week (deliveries fail and are retried by the outbox).

The scheduler ticks every ``--tick-minutes`` (default 15) of simulated time, through the in-process
``ProactiveModule`` on SQLite (and PostgreSQL with ``--postgres URL``), templates only (no LLM:
the LLM-calls column is 0 by construction). Measured at the end of the month:

- **signals lost**: used without an outcome, or "sent" in a message that was never delivered (goal 0);
- **pending at the end**: signals not yet due (not lost);
- **urgent told in time**: signals at urgency ≥ 8 of users who had not opted out, told (sent or folded,
  delivered; a repeat by the message about the same subject: title and moment) before they were due
  (goal ≥ 99 %); the rest are counted by what became of them, with why;
- messages per user per day; **duplicates delivered** (two delivered messages about one subject
  within the dedup window; goal 0); whole cycles per second (the tick's wall time).

    python benchmarks/bench_proactive_month.py [--users 200] [--days 30] [--postgres URL [--postgres-only]]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import sys
import tempfile
import time
from collections import Counter, deque
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench_proactive import own_database
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.proactive.fates import state_of
from phronesis.proactive.models import SignalIn, UserIn, UserMessageIn
from phronesis.proactive.module import ProactiveModule
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.templates import identity
from phronesis.storage.database import Database
from phronesis.storage.migrate import upgrade
from phronesis.testing import FixedClock, RecordingChannel

T = "month"
START = datetime(2026, 3, 2, tzinfo=UTC)  # a Monday
ZONES = ("Australia/Sydney", "Asia/Singapore", "Asia/Kolkata", "Europe/Berlin", "America/New_York",
         "America/Los_Angeles")  # fmt: skip
KINDS = (
    ("deadline_approaching", ("Problem set", "Grant report", "Tax form", "Roster preferences", "Lab report")),
    ("bill_due", ("Water bill", "Rent transfer", "Phone bill", "Daycare fee")),
    ("calendar_event_approaching", ("Dentist appointment", "Team stand-up", "School pickup", "Parent evening")),
    ("package_delivery", ("Nimbus thermostat", "Groceries", "Books")),
    ("birthday", ("Sam birthday", "Mum birthday")),
    ("weather_alert", ("Storm warning", "Heat warning")),
)


class FlakyChannel(RecordingChannel):
    """A console channel that is down during each week's outage (a retryable failure)."""

    def __init__(self, clock: FixedClock, outages: list[tuple[datetime, datetime]]) -> None:
        super().__init__(retryable=True)
        self._clock, self._outages = clock, outages

    async def deliver(self, message):  # type: ignore[no-untyped-def]
        now = self._clock.now()
        self.fail = any(start <= now < end for start, end in self._outages)
        return await super().deliver(message)


def _users(rng: random.Random, n: int) -> dict[str, UserIn]:
    out = {}
    for i in range(n):
        night = i % 6 == 5
        out[f"u{i:04d}"] = UserIn(
            timezone=ZONES[i % len(ZONES)],
            sleep_time="09:00" if night else "23:00",
            wake_time="17:00" if night else "07:00",
            created_at=START - timedelta(days=rng.randint(0, 300)),
            interaction_count=rng.randint(0, 600),
        )
    return out


def _signal(rng: random.Random, now: datetime, n: int) -> SignalIn:
    type_, titles = rng.choice(KINDS)
    due = now + timedelta(minutes=rng.randint(30, 36 * 60))
    urgency = rng.choice((3, 4, 5, 5, 6, 6, 7, 7, 8, 9))
    when = {"start" if "calendar" in type_ else "due": due.isoformat()}
    if type_ == "birthday":
        when = {"date": due.date().isoformat()}
    title = f"{rng.choice(titles)} {n}" if type_ == "deadline_approaching" else rng.choice(titles)
    return SignalIn(type=type_, urgency_hint=urgency, data={"title": title, **when}, dedup_key=f"s{n}", expires_at=due)


async def _month(database: Database, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    clock = FixedClock(START)
    outages = [(START + timedelta(days=7 * w + 2, hours=14), START + timedelta(days=7 * w + 2, hours=14, minutes=40))
               for w in range(args.days // 7 + 1)]  # fmt: skip
    channel = FlakyChannel(clock, outages)
    settings = ProactiveSettings(seed=7, cycle_minutes=args.tick_minutes)
    proactive = ProactiveModule(settings, database=database, llm=None, clock=clock, channels={"console": channel},
                                decisions=DecisionRecordRepository(database, clock=clock))  # fmt: skip
    users = _users(rng, args.users)
    for user_id, profile in users.items():
        await proactive.put_user(T, user_id, profile)
    end = START + timedelta(days=args.days)
    arrivals = deque(sorted(
        (START + timedelta(seconds=rng.uniform(0, args.days * 86400)), user_id)
        for user_id in users
        for _ in range(rng.randint(2 * args.days, 4 * args.days))
    ))
    n, seen, cycles, tick_seconds, opted_out = 0, 0, 0, 0.0, set()
    day, day_seconds = START.date(), 0.0
    while clock.now() < end:
        if clock.now().date() != day:  # progress, so a slow day shows where time goes
            print(f"  {database.url.split(':')[0]} day {(day - START.date()).days + 1}: {day_seconds:.1f} s of ticks",
                  file=sys.stderr, flush=True)  # fmt: skip
            day, day_seconds = clock.now().date(), 0.0
        while arrivals and arrivals[0][0] <= clock.now():
            _, user_id = arrivals.popleft()
            n += 1
            await proactive.add_signals(T, user_id, [_signal(rng, clock.now(), n)])
        started = time.perf_counter()
        report = await proactive.tick(T)
        await proactive.redeliver(T)
        tick_seconds += time.perf_counter() - started
        day_seconds += time.perf_counter() - started
        cycles += sum(report.reasons.values())
        for message in channel.sent[seen:]:
            roll = rng.random()
            text = "thanks!" if roll < 0.5 else "not helpful" if roll < 0.55 else "stop" if roll < 0.5525 else None
            if message.action_type == "button_prompt" and rng.random() < 0.125:
                await proactive.on_message(T, message.user_id, UserMessageIn(button_id="btn_yes"))
            elif text is not None:
                effect = await proactive.on_message(T, message.user_id, UserMessageIn(text=text))
                if effect.opted_out is not None and effect.opted_out.all:
                    opted_out.add(message.user_id)
        seen = len(channel.sent)
        clock.advance(minutes=args.tick_minutes)
    clock.advance(days=2)  # past every expiry
    return await _account(proactive, users, channel, opted_out, clock.now(), settings) | {
        "signals": n,
        "messages_per_user_day": len(channel.sent) / args.users / args.days,
        "cycles_per_s": cycles / tick_seconds if tick_seconds else float("nan"),
    }


async def _account(
    proactive: ProactiveModule,
    users: dict[str, UserIn],
    channel: RecordingChannel,
    opted_out: set[str],
    now: datetime,
    settings: ProactiveSettings,
) -> dict[str, Any]:
    """What became of every signal, and of every message, at the month's end."""
    delivered = {m.send_id: m for m in channel.sent}
    states: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    about: dict[tuple[str, str], set[datetime]] = {}
    lost = urgent = urgent_told = 0
    stored = {user_id: (await proactive.list_signals(T, user_id, limit=10_000)).items for user_id in users}
    for user_id, signals in stored.items():
        for signal in signals:
            if signal.outcome in ("sent", "folded") and signal.outcome_ref in delivered:
                # what each delivered message was about: its signals' identities
                about.setdefault((user_id, identity(signal.type, signal.data)), set()).add(
                    delivered[signal.outcome_ref].now
                )
    for user_id, signals in stored.items():
        for signal in signals:
            state = state_of(signal, now)
            states[state] += 1
            told = state in ("sent", "folded") and signal.outcome_ref in delivered
            if signal.consumed_at is not None and signal.outcome is None or state in ("sent", "folded") and not told:
                lost += 1
            if signal.urgency_hint >= 8 and user_id not in opted_out:
                urgent += 1
                # told by its own message, or (a repeat) by the message about the same subject
                times = about.get((user_id, identity(signal.type, signal.data)), set())
                in_time = any(at <= signal.expires_at for at in times)
                urgent_told += in_time
                if not in_time:
                    missed[f"{state}: {_gist(signal.outcome_reason)}"] += 1
    window = timedelta(hours=settings.dedup_window_hours)
    duplicates = 0
    for times in about.values():
        ordered = sorted(times)
        duplicates += sum(1 for a, b in zip(ordered, ordered[1:], strict=False) if b - a < window)
    return {"lost": lost, "pending": states["pending"], "urgent": urgent, "urgent_told": urgent_told,
            "duplicates": duplicates, "states": dict(states), "missed": dict(missed.most_common(8))}  # fmt: skip


def _gist(reason: str | None) -> str:
    """A reason without its particulars (times, titles), to count alike ones together."""
    if not reason:
        return "(no reason)"
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d|\d+(\.\d+)?|\"[^\"]*\"", "…", reason)[:90]


def _report(name: str, m: dict[str, Any]) -> None:
    urgent = m["urgent_told"] / m["urgent"] if m["urgent"] else float("nan")
    told = f"{m['urgent_told']:.0f}/{m['urgent']:.0f} ({urgent:.1%})"
    print(f"| {name} | {m['signals']:.0f} | {m['lost']:.0f} | {m['pending']:.0f} | {told} "
          f"| {m['messages_per_user_day']:.2f} | {m['duplicates']:.0f} | 0 | {m['cycles_per_s']:.0f} |")
    print(f"  outcomes: {m['states']}")
    print(f"  urgent not told in time, by what became of them: {m['missed']}")


async def main_async(args: argparse.Namespace) -> None:
    print(f"{args.users} users, {args.days} days, a tick every {args.tick_minutes} min (seed {args.seed})\n")
    print("| database | signals | lost | pending at end | urgent told in time | msgs/user/day | duplicates "
          "| LLM calls/send | cycles/s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    urls = []
    with tempfile.TemporaryDirectory() as tmp:
        if not args.postgres_only:
            urls.append(("SQLite", f"sqlite+aiosqlite:///{Path(tmp) / 'month.db'}"))
        async with contextlib.AsyncExitStack() as stack:
            if args.postgres:  # a database of its own on that server, dropped after
                urls.append(("PostgreSQL", await stack.enter_async_context(own_database(args.postgres))))
            for name, url in urls:
                database = Database(url)
                await upgrade(database)
                try:
                    _report(name, await _month(database, args))
                finally:
                    await database.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--tick-minutes", type=float, default=15.0)
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--postgres", help="also on PostgreSQL (a database of its own on this server)")
    parser.add_argument("--postgres-only", action="store_true", help="with --postgres: PostgreSQL alone")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
