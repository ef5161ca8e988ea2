"""The feedback loop's pure parts: the summary, suppression and ignored types."""

from __future__ import annotations

import pytest

from phronesis.proactive.feedback import learned_ignored_types, summarise
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.suppression import topics_of, topics_to_suppress
from phronesis.proactive.templates import category_for


def test_the_seeds_summary_example() -> None:
    window = [("deadline_warning", "engaged", 300.0, [])] * 8 + [("briefing", "ignored", None, [])] * 3
    window += [("briefing", "pending", None, [])]
    summary = summarise(window, ["memory_recall"])
    assert (summary.total_sent, summary.engaged, summary.ignored, summary.engagement_rate) == (12, 8, 3, 0.6667)
    assert summary.engagement_by_category == {"briefing": 0.0, "deadline_warning": 1.0}
    assert summary.avg_response_latency_seconds == 300.0 and summary.suppressed_categories == ["memory_recall"]


def test_suppression_after_five_unanswered_sends_or_three_negatives() -> None:
    s = ProactiveSettings()
    window = [("briefing", "ignored")] * 5 + [("nudge", "negative")] * 3 + [("habit", "ignored")] * 4
    window += [("social", "ignored")] * 6 + [("social", "button_click")] + [("wellbeing", "pending")] * 9
    topics = [(topics_of(category, []), outcome) for category, outcome in window]
    assert topics_to_suppress(topics, s) == {"briefing": "low_engagement", "nudge": "negative_feedback"}


def test_an_ignored_signal_type_suppresses_itself_not_its_category() -> None:
    """Five ignored weather alerts (category ``nudge``) suppress ``weather_alert``, not ``nudge``:
    the school pickup, a ``nudge`` too, still goes (issue 48)."""
    s = ProactiveSettings()
    window = [(topics_of("nudge", ["weather_alert"]), "ignored")] * 5
    window += [(topics_of("nudge", ["school_pickup_changed"]), "engaged")]
    assert topics_to_suppress(window, s) == {"type:weather_alert": "low_engagement"}


def test_a_signal_type_behind_three_unanswered_sends_is_learned_as_ignored() -> None:
    window = [("habit", "ignored", None, ["habit_gym"])] * 3 + [("habit", "engaged", 5.0, ["habit_yoga"])] * 3
    window += [("habit", "ignored", None, ["habit_yoga"])] * 3 + [("x", "pending", None, ["news"])] * 5
    assert learned_ignored_types(window) == ["habit_gym"]


@pytest.mark.parametrize(
    ("signal_type", "category"),
    [
        ("canvas_deadline_approaching", "deadline_warning"),
        ("calendar_event_approaching", "schedule_info"),
        ("email_important_received", "email_alert"),
        ("habit_streak", "habit"),
        ("weather", "nudge"),
    ],
)
def test_template_categories_from_signal_types(signal_type: str, category: str) -> None:
    assert category_for(signal_type) == category
