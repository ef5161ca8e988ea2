"""Request and response models of the learning decision point (HTTP, CLI and Python share them)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import ConfigDict, StringConstraints

from phronesis.clock import AwareInstant
from phronesis.schema import Schema

__all__ = ["FireRequest", "HistoryEntry", "ObservedEvent", "Observation", "SignalOutcome"]

EventId = Annotated[str, StringConstraints(min_length=1, max_length=256)]
Source = Annotated[str, StringConstraints(max_length=128)]


class FireRequest(Schema):
    """A heuristic fired for an event (seed 001 ``on_fire``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    event_id: EventId
    source: Source = ""
    fired_at: AwareInstant | None = None
    """When it fired (default: now); a time in the future is refused."""
    response_id: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None


class ObservedEvent(Schema):
    """A new event from a source: it may undo recent fires, or leave them ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    event_id: EventId
    text: Annotated[str, StringConstraints(min_length=1, max_length=4000)]
    source: Source = ""
    occurred_at: AwareInstant | None = None


class SignalOutcome(Schema):
    """One signal and what it did."""

    model_config = ConfigDict(frozen=True)

    heuristic_id: str
    fire_id: str | None
    source: str
    signal: str
    """``positive``, ``negative`` or ``neutral`` (recorded, no update)."""
    magnitude: float
    effect: str
    """``updated``, ``locked``, ``duplicate``, ``neutral`` or ``missing`` (the heuristic was deleted)."""
    old_confidence: float | None = None
    new_confidence: float | None = None


class Observation(Schema):
    model_config = ConfigDict(frozen=True)

    event_id: str
    undo: bool
    confirmed: bool = False
    """The follow-up read as thanks or confirmation: its source's open fires worked."""
    signals: list[SignalOutcome]


class HistoryEntry(Schema):
    """One step of a heuristic's confidence, with the signal that moved it."""

    model_config = ConfigDict(frozen=True)

    at: datetime
    source: str
    positive: bool
    magnitude: float
    weight: float | None
    old_confidence: float
    new_confidence: float
    event_id: str | None
    fire_id: str | None
    helped_share: float | None = None
    """A soft signal (``calibrated``): the part of its weight that counted for success, P(helped | outcome);
    the rest counted against. None for a signal that counted wholly one way."""


class ChannelOutcome(Schema):
    """One implicit outcome in the tenant's channel (``heuristics.channel``)."""

    outcome: str
    rated_helped: float
    """Fires rated as helpful (standing rating) that had this outcome."""
    rated_not_helped: float
    p_given_helped: float
    """P(outcome | the fire helped): the prior with what rated fires taught."""
    p_given_not_helped: float
    helped_share_at_half: float
    """What one such outcome counts for success on a heuristic at confidence 0.5."""


class ChannelReport(Schema):
    """What each implicit outcome says about a fire, as learned from rated fires."""

    strategy: str
    weighs_outcomes: bool
    """Whether the strategy weighs implicit outcomes through this channel (``calibrated``); the
    counts are kept whatever the strategy, so switching to it starts from what was learned."""
    outcomes: list[ChannelOutcome]
