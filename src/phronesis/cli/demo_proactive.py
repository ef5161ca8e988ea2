"""The proactive half of ``phronesis demo``: one simulated day of a user, on an injected clock.

Every step is a moment of the day (the user's local time): a signal arrives and a cycle
runs, or the user writes. Each cycle prints its decision and the reason, so the pre-filter
(quiet hours, urgent bypass, cooldown, daily cap), scoring, deferred insights and the
feedback loop can all be seen in one run. Candidates come from templates: no LLM needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from rich.console import Console

from phronesis.engine import Engine
from phronesis.proactive.models import SignalIn, UserIn, UserMessageIn
from phronesis.proactive.module import ProactiveModule
from phronesis.testing import FixedClock

__all__ = ["walk_proactive"]

TENANT = "demo"
ZONE = ZoneInfo("Asia/Singapore")
DAY = datetime(2026, 3, 10, tzinfo=ZONE)


@dataclass(frozen=True)
class Moment:
    at: str
    """Local HH:MM."""
    say: str
    signals: tuple[dict[str, Any], ...] = ()
    reply: str | None = None


def _at(hhmm: str) -> datetime:
    hour, minute = map(int, hhmm.split(":"))
    return DAY.replace(hour=hour, minute=minute)


def _signal(type_: str, urgency: int, title: str, in_minutes: int | None = None, at: str = "00:00") -> dict[str, Any]:
    data: dict[str, Any] = {"title": title}
    if in_minutes is not None:
        data["due"] = (_at(at) + timedelta(minutes=in_minutes)).isoformat()
    return {"type": type_, "urgency_hint": urgency, "data": data, "dedup_key": f"{type_}:{title}"}


DAY_PLAN = [
    Moment(
        "02:00",
        "a deadline signal arrives at night",
        (_signal("deadline_approaching", 6, "CS2103 project", 1800, "02:00"),),
    ),
    Moment(
        "02:05",
        "an urgent one arrives too",
        (_signal("exam_venue_changed", 9, "Exam venue moved to LT27", 420, "02:05"),),
    ),
    Moment(
        "07:45",
        "morning: the class calendar",
        (_signal("calendar_event_approaching", 6, "CS2103 lecture", 75, "07:45"),),
    ),
    Moment("08:00", "a habit nudge right after", (_signal("habit_gym", 5, "Gym session"),)),
    Moment("08:20", "Maya replies", reply="thanks, on my way"),
    Moment("12:00", "a low-urgency signal", (_signal("memory_recall", 3, "That chimichanga place"),)),
    Moment(
        "19:00",
        "two signals in the evening",
        (
            _signal("deadline_approaching", 7, "Problem set 4", 300, "19:00"),
            _signal("social_birthday", 6, "Sam's birthday dinner", 60, "19:00"),
        ),
    ),
    Moment("20:30", "another urgent one", (_signal("grade_posted", 9, "Midterm grade"),)),
    Moment("21:00", "one more urgent one", (_signal("email_important_received", 9, "Internship offer"),)),
    Moment("21:30", "Maya writes: what should I do tonight?", reply="what should I do tonight?"),
]


async def walk_proactive(engine: Engine, console: Console) -> None:
    console.print("[bold]Proactive (seed 004)[/bold]: one simulated day of Maya (Asia/Singapore, asleep 23:30–07:30)\n")
    clock = FixedClock(_at("01:55"))
    settings = engine.settings.proactive.model_copy(update={"seed": 7, "scheduler": False})
    module = ProactiveModule(
        settings,
        database=engine.database,
        llm=None,
        decisions=engine.decisions,
        clock=clock,
    )
    try:
        await module.put_user(
            TENANT,
            "maya",
            UserIn(
                timezone="Asia/Singapore",
                sleep_time="23:30",
                wake_time="07:30",
                created_at=_at("00:00") - timedelta(days=45),
                interaction_count=140,
            ),
        )
        for moment in DAY_PLAN:
            clock.advance(seconds=(_at(moment.at) - clock.now()).total_seconds())
            head = f"[bold]{moment.at}[/] {moment.say}"
            if moment.reply is not None:
                reply = await module.on_message(TENANT, "maya", UserMessageIn(text=moment.reply))
                outcomes = ", ".join(f"{f.category} → {f.outcome}" for f in reply.feedback) or "no pending message"
                insights = "; ".join(f"[{i.category}] {i.message_draft}" for i in reply.insights) or "none"
                console.print(head, highlight=False)
                detail = f"   feedback: {outcomes}\n   insights to weave in: {insights}"
                console.print(detail, markup=False, highlight=False)
                continue
            await module.add_signals(TENANT, "maya", [SignalIn.model_validate(s) for s in moment.signals])
            result = await module.run_cycle(TENANT, "maya")
            if result.decision == "sent":
                line = f"   → SENT ({result.category}, score {result.score} ≥ {result.threshold}): {result.message}"
            else:
                line = f"   → silent: {result.reason}" + (
                    f" ({result.deferred} kept as deferred insight)" if result.deferred else ""
                )
            console.print(head, highlight=False)
            console.print(line, markup=False, highlight=False)
        summary = await module.feedback_summary(TENANT, "maya")
        console.print(
            f"\nthe day: {summary.total_sent} sent, {summary.engaged} engaged, "
            f"cap {engine.settings.proactive.trust_levels['established'].daily_cap} for an established user\n"
        )
    finally:
        await module.close()
