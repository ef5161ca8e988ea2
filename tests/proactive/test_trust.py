"""Seed 004 §4: the trust ramp, its boundaries, and demotion after inactivity."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.trust import trust_for

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("days", "messages", "level"),
    [
        (13, 500, "new"),
        (30, 15, "new"),  # the seed: 30 days but 15 messages stays new
        (14, 20, "building"),
        (29, 1000, "building"),
        (30, 99, "building"),
        (30, 100, "established"),
        (89, 100, "established"),
        (90, 100, "deep"),
    ],
)
def test_levels_at_their_boundaries(days: int, messages: int, level: str) -> None:
    trust = trust_for(
        ProactiveSettings(), now=NOW, created_at=NOW - timedelta(days=days), interactions=messages, last_active_at=NOW
    )
    assert trust.level == level


def test_each_level_carries_the_seeds_numbers() -> None:
    s = ProactiveSettings()
    table = {k: (v.score_threshold, v.daily_cap, v.min_urgency) for k, v in s.trust_levels.items()}
    assert table == {"new": (7.0, 2, 7), "building": (6.0, 3, 6), "established": (5.5, 4, 5), "deep": (5.0, 5, 4)}


@pytest.mark.parametrize(("idle", "level"), [(29, "deep"), (30, "established"), (59, "established"), (60, "building")])
def test_inactivity_demotes_one_level_after_30_days_and_two_after_60(idle: int, level: str) -> None:
    trust = trust_for(
        ProactiveSettings(),
        now=NOW,
        created_at=NOW - timedelta(days=200),
        interactions=500,
        last_active_at=NOW - timedelta(days=idle),
    )
    assert trust.level == level


def test_demotion_never_goes_below_new() -> None:
    trust = trust_for(
        ProactiveSettings(),
        now=NOW,
        created_at=NOW - timedelta(days=15),
        interactions=25,
        last_active_at=NOW - timedelta(days=90),
    )
    assert (trust.level, trust.demoted_by) == ("new", 1)
