"""A proactive decision in words, from its record (issue 52)."""

from __future__ import annotations

from typing import Any

from phronesis.audit.models import NewDecisionRecord
from phronesis.explanations import about, explain


def _record(action: str, reason: str | None, **attributes: Any) -> NewDecisionRecord:
    inputs = attributes.pop("inputs", {})
    return NewDecisionRecord(
        id="d1", tenant="t", kind="proactive", subject_id="maya", path="templates", action=action, reason=reason,
        inputs=inputs, attributes=attributes,
    )  # fmt: skip


def test_a_sent_message_says_its_score_against_the_threshold() -> None:
    candidates = [
        {
            "message": "Your essay is due at 18:00.",
            "category": "deadline_warning",
            "score": 6.35,
            "verdict": "approved",
        },
        {"message": "Gym session.", "category": "habit", "score": 5.0, "verdict": "deferred"},
    ]
    assert explain(_record("sent", "sent", candidates=candidates, threshold=5.5)) == (
        "sent 'Your essay is due at 18:00.' (deadline_warning, score 6.35 ≥ 5.5) over 1 other candidate"
    )


def test_silence_says_why_in_words() -> None:
    quiet = _record("silent", "quiet_hours", until_local="07:30", timezone="Europe/London")
    assert explain(quiet) == "silent: quiet hours until 07:30 local (Europe/London)"
    capped = _record("silent", "daily_cap", inputs={"trust": {"daily_cap": 4}, "sends_today": 4})
    assert explain(capped) == "silent: the daily cap of 4 is reached (4 sent today)"
    low = _record("silent", "below_threshold", candidates=[{"message": "Gym session.", "score": 5.0}], threshold=5.5)
    assert explain(low) == "silent: the best candidate 'Gym session.' scored 5.0 < 5.5"
    assert explain(_record("silent", "muted")) == "silent: the user muted proactive messages"
    assert about(quiet) == "user maya"
