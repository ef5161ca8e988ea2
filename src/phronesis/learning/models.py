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
    """A heuristic fired for an event: its later outcome (observed events, feedback) teaches it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    event_id: EventId
    """The event the heuristic fired for: your id, 1 to 256 characters. An observed event with this same id neither
    undoes nor ignores the fire."""
    source: Source = ""
    """Where the event came from ("" by default). Later events from the same source within the undo window (30 seconds
    by default) can undo, confirm or ignore this fire."""
    fired_at: AwareInstant | None = None
    """When it fired (default: now); a time in the future is refused."""
    response_id: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    """The response_id of the executive decision this fire belongs to, if any: rating that decision (POST /v1/feedback)
    then rates this fire too."""
    event_text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4000)] | None = None
    """The event's text, if you have it: a negative outcome on an event unlike the heuristic's examples then teaches a
    counter-example (the match was wrong) instead of lowering its confidence (the action was wrong), and a positive one
    adds it as an example. Without it, every negative outcome lowers the confidence."""


class ObservedEvent(Schema):
    """A new event from a source: it may undo recent fires, or leave them ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    event_id: EventId
    """Your id for the event, 1 to 256 characters. Fires recorded for this same event are neither undone nor ignored by
    it."""
    text: Annotated[str, StringConstraints(min_length=1, max_length=4000)]
    """What the event says, 1 to 4000 characters: read for undo words (undo, revert, cancel, ...) and for thanks or
    confirmation."""
    source: Source = ""
    """Where the event came from ("" by default). Only the open fires of this same source, within the undo window before
    the event, are affected."""
    occurred_at: AwareInstant | None = None
    """When it happened, with a UTC offset (default: now); a time in the future is refused."""
    reply_to: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = None
    """What the event answers, if you know: a decision's response_id, a fire's id or the event id a heuristic fired
    for. Then only that fire is undone, thanked or ignored by it. Without it, an event answers the fires it is about
    (similar to their event or their action) or, when it reads as an undo, thanks or a complaint and is about none,
    the latest."""


class SignalOutcome(Schema):
    """One signal and what it did."""

    model_config = ConfigDict(frozen=True)

    heuristic_id: str
    """The heuristic the signal was about."""
    fire_id: str | None
    """The fire the signal was about; None for a signal not tied to a fire."""
    source: str
    """What kind of signal: implicit_undo, user_implicit (thanks or confirmation), implicit_ignored or
    implicit_timeout."""
    signal: str
    """``positive``, ``negative`` or ``neutral`` (recorded, no update): the direction it was read in. A
    ``soft`` one is weighed both ways, by what such outcomes meant (see ``soft``)."""
    soft: bool = False
    """True: the ``calibrated`` strategy weighed this outcome part for, part against, by what the
    tenant's rated fires say it means (an ignore is not plainly negative); ``signal`` is only its lean."""
    magnitude: float
    """The signal's strength, before feedback_weight and decay; 0 for a neutral signal."""
    effect: str
    """``updated``, ``locked``, ``duplicate``, ``neutral``, ``missing`` (the heuristic was deleted) or
    ``rated`` (a soft outcome of a fire a rating stands on: the rating says whether it helped)."""
    old_confidence: float | None = None
    """The heuristic's confidence before, 0 to 1; None when nothing was applied (a neutral signal, or the heuristic is
    gone)."""
    new_confidence: float | None = None
    """The heuristic's confidence after, 0 to 1; None when nothing was applied (a neutral signal, or the heuristic is
    gone)."""


class Observation(Schema):
    model_config = ConfigDict(frozen=True)

    event_id: str
    """The observed event's id, as sent."""
    undo: bool
    """Whether the event read as an undo of its source's open fires (their heuristics then get a negative signal)."""
    confirmed: bool = False
    """The follow-up read as thanks or confirmation: its source's open fires worked."""
    complaint: bool = False
    """The follow-up read as a complaint ("that didn't help", "still cold"): its heuristics get a negative signal
    (``implicit_complaint``), as for an undo."""
    signals: list[SignalOutcome]
    """One entry per open fire the event closed, with what its signal did; empty when its source had no open fires, or
    none it is about."""
    open_fires: int = 0
    """The latest open fires of its source it was compared with (at most 8): 0 when there were none."""
    ignored_later: int = 0
    """Fires a decided event ignored, whose ignore is applied just after the decision is answered (an ignore changes
    nothing in the decision; ``signals`` lists only what was applied before the answer)."""


class HistoryEntry(Schema):
    """One step of a heuristic's confidence, with the signal that moved it."""

    model_config = ConfigDict(frozen=True)

    at: datetime
    """When the signal was applied (UTC)."""
    source: str
    """Where the signal came from: user_explicit, dev, user_implicit, implicit_timeout, implicit_undo, implicit_ignored,
    llm_endorsement, or the source given to POST /v1/heuristics/{id}/confidence (api by default)."""
    positive: bool
    """Whether it counted for the heuristic (true) or against it (false). For a soft signal, only which way it is
    recorded (see helped_share)."""
    magnitude: float
    """The signal's strength as sent, before feedback_weight and decay; 0 where a rating was taken back."""
    weight: float | None
    """The evidence actually added: magnitude times feedback_weight, after decay. None for steps recorded before weights
    were kept."""
    old_confidence: float
    """The confidence before this step, 0 to 1."""
    new_confidence: float
    """The confidence after this step, 0 to 1."""
    event_id: str | None
    """The event the signal was about; None if it named none."""
    fire_id: str | None
    """The fire the signal was about; None for a signal not tied to a fire (such as one sent with
    POST /v1/heuristics/{id}/confidence)."""
    helped_share: float | None = None
    """A soft signal (``calibrated``): the part of its weight that counted for success, P(helped | outcome);
    the rest counted against. None for a signal that counted wholly one way."""
    lesson: str | None = None
    """What the signal taught: ``wrong_match`` (the event was unlike its examples: a counter-example, the confidence
    unchanged), ``wrong_action`` (the event was like its examples: the confidence lowered), ``new_example`` (a positive
    outcome on a new situation, added as an example), ``confirmed`` (a positive on a situation it knew), ``no_news``
    (no complaint within the undo window), ``ignored``, ``recovered`` (an undo taken back by a probation fire that went
    well), or ``event_unknown`` (no event text was kept with the fire: taken as the action's fault). None for evidence
    sent directly."""
    why: str | None = None
    """The lesson in words: which example the event was compared with, and how near it was."""
    took_back: str | None = None
    """What this step took back (last click wins): the earlier rating a rating replaces or a neutral score
    withdraws, as its sign and source (``positive user_explicit``), or, for a first rating of a fire that had a
    soft outcome (``calibrated``), that outcome's source (``implicit_timeout``: the rating says outright whether
    the fire helped). None otherwise."""
    withdrawn: bool = False
    """A neutral score took the standing rating back: this step removes its evidence and adds none."""
    put_back: str | None = None
    """A withdrawn rating (a neutral click) of a fire whose soft outcome it had replaced: that outcome's source,
    whose evidence counts again. None otherwise."""


class ChannelOutcome(Schema):
    """One implicit outcome in the tenant's channel (``heuristics.channel``)."""

    outcome: str
    """The implicit outcome: implicit_timeout (no follow-up within the undo window), implicit_undo, implicit_ignored or
    user_implicit (thanks or confirmation)."""
    rated_helped: int
    """Fires rated as helpful (standing rating) that had this outcome."""
    rated_not_helped: int
    """Fires rated as not helpful (standing rating) that had this outcome."""
    p_given_helped: float
    """P(outcome | the fire helped): the prior with what rated fires taught."""
    p_given_not_helped: float
    """P(outcome | the fire did not help): the prior with what rated fires taught."""
    helped_share_at_half: float
    """What one such outcome counts for success on a heuristic at confidence 0.5."""


class ChannelReport(Schema):
    """What each implicit outcome says about a fire, as learned from rated fires."""

    strategy: str
    """The learning strategy in use: bayesian, discounted_beta or calibrated."""
    weighs_outcomes: bool
    """Whether the strategy weighs implicit outcomes through this channel (``calibrated``); the
    counts are kept whatever the strategy, so switching to it starts from what was learned."""
    outcomes: list[ChannelOutcome]
    """One entry per implicit outcome."""
