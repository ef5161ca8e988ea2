"""A/B assignment: stable, independent of setting order, and close to the configured split."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.exceptions import ConfigurationError
from phronesis.executive.experiment import Experiment


@given(st.text(max_size=50))
def test_assignment_is_a_pure_function_of_the_key(value: str) -> None:
    a = Experiment.from_weights({"heuristic_first": 1, "always_llm": 1}, "user", "s")
    b = Experiment.from_weights({"always_llm": 1, "heuristic_first": 1}, "user", "s")
    assert a.assign(value) == b.assign(value) == a.assign(value)


def test_the_split_follows_the_weights() -> None:
    experiment = Experiment.from_weights({"heuristic_first": 3, "always_llm": 1}, "user", "salt")
    arms = [experiment.assign(f"user-{i}") for i in range(20_000)]
    assert arms.count("heuristic_first") / len(arms) == pytest.approx(0.75, abs=0.015)


def test_another_salt_reshuffles_users() -> None:
    a = Experiment.from_weights({"x": 1, "y": 1}, "user", "one")
    b = Experiment.from_weights({"x": 1, "y": 1}, "user", "two")
    assert [a.assign(str(i)) for i in range(200)] != [b.assign(str(i)) for i in range(200)]


def test_no_arms_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        Experiment.from_weights({}, "user", "s")
