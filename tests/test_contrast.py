"""Opposites and negation (issue 46): the executive's scope and admission's same-task rule share it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.contrast import contrast, negated


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        ("the living room is too warm", "the user says the living room is too cold", "cold/warm"),
        ("the bedroom is too cold", "the bedroom is too hot", "cold/warm"),
        ("the front door is not locked", "the front door is locked", "one is negated"),
        ("the front door is unlocked", "the front door is locked", "locked/unlocked"),
        ("Disable two-factor authentication for the admin account", "Enable two-factor authentication for the admin account", "enable/disable"),  # noqa: E501
        ("turn the heating on", "turn the heating off", "on/off"),
        ("the kitchen lights are still on", "the kitchen lights are off", "on/off"),
        ("ok I'm heading out to the office now", "I'm home", "arrive/leave"),
        ("the garage door is open", "the garage door is closed", "open/closed"),
        ("the api server went down", "the api server is back up", "down/recovered"),
        ("the nightly backup failed", "the nightly backup completed successfully", "succeeded/failed"),
        ("the disk is almost full", "the disk is empty again", "full/empty"),
        ("the meeting started", "the meeting ended", "start/stop"),
        ("turn the volume up", "turn the volume down", "up/down"),
        ("the parcel has not arrived yet", "a parcel has arrived", "one is negated"),
        ("the living room isn't cold any more, it's fine as it is", "the living room is too warm", "cold/warm"),
        ("I'm not sure I locked the front door, can you do it", "unlock the front door", "locked/unlocked"),
    ],
)
def test_opposite_situations_are_not_the_same(a: str, b: str, why: str) -> None:
    found = contrast(a, b)
    assert found is not None and why in found.describe()
    assert contrast(b, a) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("brr, the lounge is freezing", "the user says the living room is too cold"),
        ("the living room isn't warm enough", "the living room is too cold"),  # two flips: the same
        ("the front door is not locked", "the front door is unlocked"),
        ("I forgot my password and cannot log in", "I forgot my password"),  # a negation of something else
        ("the meeting on Monday was moved", "call off the meeting"),  # "on" and "off" as prepositions
        ("a parcel is at the front door", "the courier left a package on the porch"),
        ("back up the database tonight", "the database server went down"),
        ("the smoke alarm is beeping in the kitchen", "fire! smoke pouring out of the kitchen"),
    ],
)
def test_what_is_not_opposite_stays_comparable(a: str, b: str) -> None:
    assert contrast(a, b) is None


def test_negation_forms() -> None:
    assert negated("the door isn't locked") and negated("nothing happened") and negated("I can't sleep")
    assert not negated("the door is locked")


@given(st.text(max_size=80), st.text(max_size=80))
def test_contrast_is_symmetric_and_nothing_is_its_own_opposite(a: str, b: str) -> None:
    assert (contrast(a, b) is None) == (contrast(b, a) is None)
    assert contrast(a, a) is None
