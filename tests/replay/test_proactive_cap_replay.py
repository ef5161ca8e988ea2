"""Replaying one trust level's daily cap on synthetic days of proactive cycles whose outcome is
known (issue 25); a tenant's own cap holding for the next cycle is ``tests/proactive/test_service``."""

from __future__ import annotations

import random
from datetime import timedelta

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.replay.proactive_cap import load_counted, replay_cap_rows
from phronesis.storage.database import Database
from phronesis.testing import FixedClock
from tests.replay.test_executive_replay import NOW
from tests.replay.test_proactive_replay import add_send, add_user

CAP = 3
"""The logged cap of the level (``building``)."""
Day = list[tuple[str, bool]]
"""A user's cycles of one day in order: what each did (``sent``, ``silent``, or a pre-filter
block), and for a send whether the user engaged."""


def _days(n: int, seed: int = 9) -> list[Day]:
    """Days as the logged cap made them: after ``CAP`` sends every cycle is blocked by the cap."""
    rng = random.Random(seed)
    days = []
    for _ in range(n):
        day: Day = []
        sent = 0
        for _ in range(rng.randint(1, 8)):
            if sent >= CAP:
                day.append(("daily_cap", False))
            elif rng.random() < 0.15:
                day.append(("cooldown", False))
            elif rng.random() < 0.6:
                day.append(("sent", rng.random() < 0.3 + 0.2 * sent))  # later sends engage more
                sent += 1
            else:
                day.append(("silent", False))
        days.append(day)
    return days


async def _log(database: Database, days: list[Day]) -> None:
    """As the cycle records them: the day's count before each, a send's feedback; an LLM call for
    each cycle past the pre-filter."""
    await add_user(database)
    records = DecisionRecordRepository(database, clock=FixedClock(NOW - timedelta(days=1)))
    n = 0
    for day in days:
        count = 0
        for what, engaged in day:
            n += 1
            blocked = what in ("daily_cap", "cooldown")
            send_id = f"s{n}" if what == "sent" else None
            if send_id is not None:
                outcome = "engaged" if engaged else "ignored"
                await add_send(
                    database, send_id, category="deadline_warning", score=7.0, probability=1.0, outcome=outcome
                )
            await records.write(
                NewDecisionRecord(
                    id=f"p{n}",
                    tenant="t",
                    kind="proactive",
                    subject_id="u",
                    strategy="prefilter" if blocked else "llm",
                    path="prefilter" if blocked else "llm",
                    action="sent" if send_id else "silent",
                    reason=what if blocked else None,
                    llm_calls=0 if blocked else 1,
                    inputs={"trust": {"level": "building", "daily_cap": CAP}, "sends_today": count},
                    attributes={"send_id": send_id},
                )  # fmt: skip
            )
            count += what == "sent"
        assert count <= CAP


def _engagement(days: list[Day], cap: int) -> tuple[int, float]:
    """The sends a lower cap keeps (each day's first ``cap``) and their engagement rate."""
    kept = [engaged for day in days for engaged in [e for what, e in day if what == "sent"][:cap]]
    return len(kept), sum(kept) / len(kept)


async def test_a_lower_cap_stops_each_days_cycles_after_its_sends_exactly(database: Database) -> None:
    """Lowered to 1, a user's first send of a day stands and every later cycle of the day is
    stopped before its candidates: its send and LLM call are gone, and the engagement of the
    sends that remain is known, on every one of them."""
    days = _days(300)
    await _log(database, days)
    rows = await load_counted(database, "t", NOW - timedelta(days=30), "building")
    report = replay_cap_rows(rows, 1, current=CAP, parameter="daily_cap.building")
    sends, engagement = _engagement(days, 1)
    assert report.sent_replayed == sends < (report.sent_logged or 0)
    assert report.coverage == 1.0 and report.replayed_success.rate == engagement
    stopped = sum(
        1 for day in days for i, (what, _) in enumerate(day) if what in ("sent", "silent") and _before(day, i) >= 1
    )
    assert report.changed == stopped and report.llm_calls_logged - report.llm_calls_replayed == stopped
    assert {c.replayed for c in report.changes} == {"blocked: daily_cap"}


def _before(day: Day, i: int) -> int:
    return sum(what == "sent" for what, _ in day[:i])


async def test_a_higher_cap_lets_blocked_cycles_go_on_to_outcomes_never_logged(database: Database) -> None:
    """Raised to 5, the cycles the cap stopped would have gone on: changes of unknown outcome,
    outside the estimate; nothing is guessed about what they would have sent."""
    days = _days(200)
    await _log(database, days)
    rows = await load_counted(database, "t", NOW - timedelta(days=30), "building")
    assert rows.unrecorded == 0  # blocks were recorded
    report = replay_cap_rows(rows, 5, current=CAP, parameter="daily_cap.building")
    blocked = sum(what == "daily_cap" for day in days for what, _ in day)
    assert blocked and report.changed == blocked
    assert report.changes[0].replayed == "past the cap: candidates never made, ?"
    assert report.sent_replayed == report.sent_logged  # the known sends all stand
    assert report.coverage < 1.0 and report.replayed_success.covered == report.sent_logged
    assert report.llm_calls_replayed == report.llm_calls_logged  # calls never made are not counted
