"""Every setting a replay varies is replayable, tunable and applicable: one registry each (issue 25)."""

from __future__ import annotations

from typing import get_args

from phronesis.replay.models import PARAMETERS, setting_of
from phronesis.replay.run import replay_for
from phronesis.replay.tune import grid
from phronesis.settings import Settings
from phronesis.tenant_settings import BOUNDS, CHOICES, TUNABLE, WHOLE, SettingName, out_of_range


def test_each_parameter_has_a_replay_a_setting_and_a_grid_in_its_range() -> None:
    settings = Settings()
    for point, parameters in PARAMETERS.items():
        for parameter in parameters:
            name = setting_of(point, parameter)
            assert replay_for(point, parameter) is not None
            configured = TUNABLE[name].of(settings)
            assert out_of_range(name, configured) is None, name  # the configured value is applicable
            values = grid(name)
            assert all(out_of_range(name, v) is None for v in values), name
            if name in CHOICES:  # a choice's grid is every name it takes
                assert values == CHOICES[name] and configured in values
            else:
                assert values[0] == BOUNDS[name][0], name
    assert {setting_of(p, x) for p, xs in PARAMETERS.items() for x in xs} == set(get_args(SettingName))


def test_a_count_takes_whole_numbers_only() -> None:
    assert WHOLE and all(name.startswith("proactive.daily_cap.") for name in WHOLE)
    assert out_of_range("proactive.daily_cap.new", 2.5) == "proactive.daily_cap.new takes a whole number, not 2.5"
    assert out_of_range("proactive.daily_cap.new", 3.0) is None


def test_a_choice_takes_its_names_and_a_number_takes_a_number() -> None:
    assert out_of_range("executive.strategy", "urgency_tiered") is None
    assert out_of_range("executive.strategy", "fastest") == (
        "executive.strategy takes one of heuristic_first, always_llm, urgency_tiered, not 'fastest'"
    )
    assert out_of_range("executive.strategy", 0.5) is not None
    assert (
        out_of_range("routing.high_threshold", "high")
        == "routing.high_threshold takes a number from 0 to 1, not 'high'"
    )
