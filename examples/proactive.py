"""Seed 004, proactive messages: at each cycle a user with pending signals gets a message now, a
thought kept for their next reply, or silence, and the reason.

An evening and a morning of Maya's (Asia/Singapore, asleep 23:30-07:30), on a clock moved by hand
so the story is the same whenever it runs. Runs in-process on the embedded defaults (SQLite in a
temporary data directory, no LLM: candidates come from templates; messages go to the console
channel, the log).

    python examples/proactive.py

Uses ``PHRONESIS_DATA_DIR`` when it is set, else a temporary directory removed at the end.
Documented in docs/decisions/proactive.md.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from phronesis import Engine, load_settings
from phronesis.proactive.models import SignalIn, UserIn, UserMessageIn
from phronesis.testing import FixedClock

TENANT = "example"
SINGAPORE = ZoneInfo("Asia/Singapore")


def local(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=SINGAPORE)


def signal(kind: str, urgency: int, title: str, due: datetime | None = None) -> SignalIn:
    data = {"title": title} | ({"due": due.isoformat()} if due else {})
    return SignalIn.model_validate({"type": kind, "urgency_hint": urgency, "data": data})


# (local time, what happens): a signal arrives and a cycle runs, or Maya writes
MOMENTS: list[tuple[datetime, SignalIn | str]] = [
    (local(9, 23, 45), signal("deadline_approaching", 6, "CS2103 project", local(10, 18))),  # in quiet hours
    (local(9, 23, 50), signal("exam_venue_changed", 9, "Exam venue moved to LT27", local(10, 9))),  # urgent
    (local(10, 7, 45), signal("calendar_event_approaching", 6, "CS2103 lecture", local(10, 9))),
    (local(10, 8, 0), signal("habit_gym", 5, "Gym session")),  # right after a message
    (local(10, 8, 20), "thanks, on my way"),
    (local(10, 12, 0), signal("memory_recall", 3, "That chimichanga place")),  # the night's deadline goes
]


async def main(data_dir: Path) -> None:
    clock = FixedClock(local(9, 23, 40))
    settings = load_settings(data_dir=data_dir, proactive={"scheduler": False, "seed": 7})
    async with Engine(settings, clock=clock) as engine:
        await engine.proactive.put_user(
            TENANT,
            "maya",
            UserIn(
                timezone="Asia/Singapore",
                sleep_time="23:30",
                wake_time="07:30",
                created_at=clock.now() - timedelta(days=45),
                interaction_count=140,
            ),
        )
        for at, what in MOMENTS:
            clock.advance(seconds=(at - clock.now()).total_seconds())
            when = at.strftime("%a %H:%M")
            if isinstance(what, str):
                reply = await engine.proactive.on_message(TENANT, "maya", UserMessageIn(text=what))
                print(f"{when} Maya: {what!r}: {', '.join(f'{f.category} {f.outcome}' for f in reply.feedback)}")
                continue
            await engine.proactive.add_signals(TENANT, "maya", [what])
            cycle = await engine.run_proactive_cycle("maya", tenant=TENANT)
            if cycle.decision == "sent":
                why = f"{cycle.category}, score {cycle.score} >= {cycle.threshold}"
                print(f"{when} {what.type} arrives: sent ({why}): {cycle.message}")
            else:
                kept = f", {cycle.deferred} kept as a deferred insight" if cycle.deferred else ""
                print(f"{when} {what.type} arrives: silent, {cycle.reason}{kept}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="phronesis-example-") as scratch:
        asyncio.run(main(Path(os.environ.get("PHRONESIS_DATA_DIR") or scratch)))
