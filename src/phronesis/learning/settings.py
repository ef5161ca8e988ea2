"""Learning's settings section (seed 001; ``PHRONESIS_LEARNING__*``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import Field, field_validator, model_validator
from pydantic_settings import NoDecode

from phronesis.schema import Schema
from phronesis.settings_parts import PositiveSeconds, Probability, split_on

__all__ = ["STRATEGY_NAMES", "LearningSettings", "unknown_strategy"]

STRATEGY_NAMES = ("bayesian", "calibrated", "discounted_beta")
"""The learning strategies ``learning.factory`` builds (``LEARNING_STRATEGIES``)."""


def unknown_strategy(name: str) -> str:
    """What to say about a strategy name that is not one (settings validation and the factory alike)."""
    return f"unknown learning strategy {name!r}; expected one of {', '.join(STRATEGY_NAMES)}"


def _confirm_keywords() -> tuple[str, ...]:
    from phronesis.learning.follow_ups import DEFAULT_THANKS  # the strategy's own default, one list

    return DEFAULT_THANKS


def _default_channel_prior() -> Mapping[str, tuple[float, float]]:
    from phronesis.heuristics.channel import DEFAULT_CHANNEL_PRIOR  # memory's own default, one table

    return DEFAULT_CHANNEL_PRIOR


class LearningSettings(Schema):
    strategy: str = "bayesian"
    """Seed 001 ``LEARNING_STRATEGY``: ``bayesian`` (the seed's fixed signals), ``discounted_beta`` (the same,
    its evidence fading with ``half_life_sec``) or ``calibrated`` (implicit outcomes weighed through a
    channel, ``channel_prior``). Any other name stops start-up."""
    undo_window_sec: PositiveSeconds = 30.0  # seed 001, F-11
    """Seed 001 F-11: seconds after a fire in which a follow-up from its source can undo, confirm or ignore
    it; a fire with no implicit signal by then gets the timeout positive (``implicit_timeout``: no news
    is good news)."""
    related_similarity: Probability = 0.6
    """A follow-up is about an open fire (and can undo, thank or ignore it) when it is at least
    this similar to the fire's event, speaks of its action (a word of it), or names it (``reply_to``);
    an undo, thanks or complaint about none of them answers the latest. all-MiniLM-L6-v2 puts unrelated
    household events (a parcel, the dishwasher) below 0.3 of each other, and two different requests of
    one CLINC150 domain mostly between 0.3 and 0.6."""
    lesson_like_similarity: Probability = 0.8
    """A negative outcome on an event at least this similar to something the heuristic is
    confirmed to apply to (its condition, its examples) lowers its confidence (the action was wrong);
    on an event less similar, the event becomes a counter-example and the confidence stays (the match
    was wrong). all-MiniLM-L6-v2 puts a restatement of one situation at 0.8 and more ("it is dark
    outside now" / "it is getting dark outside": 0.88): teaching it as a counter-example would cut a
    real paraphrase out of the scope. The labelled set's dev half (``bench_executive_quality.py``)
    had its wrong fires between 0.70 and 0.89; those above 0.8 were opposites the contrast rules
    missed, which then cost confidence rather than scope."""
    ignored_threshold: int = Field(default=3, ge=1, le=1000)
    """Seed 001: the ignore streak (follow-ups from its source, about its open fire, that neither undo nor
    confirm it) at which an ignore is a negative ``implicit_ignored``; shorter streaks are NEUTRAL, and the
    streak restarts after the negative. ``calibrated`` weighs every ignore softly instead."""
    undo_keywords: Annotated[list[str], NoDecode, split_on(",")] = Field(
        default_factory=lambda: ["undo", "revert", "cancel", "rollback", "nevermind", "never mind"], min_length=1
    )
    """Replaces the default list (it does not add to it)."""
    confirm_keywords: Annotated[list[str], NoDecode, split_on(",")] = Field(
        default_factory=lambda: list(_confirm_keywords()), min_length=1
    )
    """A follow-up saying one of these confirms the open fires of its source (``user_implicit``).
    Replaces the default list (it does not add to it)."""
    implicit_magnitude: float = Field(default=1.0, gt=0.0, le=10.0)
    """Seed 001 F-03: the weight of an implicit signal (timeout, undo, complaint, thanks, ignore); above the
    explicit one by default, since what worked in practice outweighs an opinion."""
    explicit_magnitude: float = Field(default=0.8, gt=0.0, le=10.0)
    """Seed 001 F-03: the weight of an explicit binary rating (positive or negative, a user's or a
    developer's); 3- and 5-point scores use ``user_score_magnitudes`` and ``dev_score_magnitudes``."""
    user_score_magnitudes: tuple[float, float, float] = (-0.8, 0.0, 0.8)
    """F-23 user 3-point score (1 bad, 2 meh, 3 good) → signed magnitude; 0 is neutral (recorded, no update)."""
    dev_score_magnitudes: tuple[float, float, float, float, float] = (-0.4, -0.2, 0.05, 0.2, 0.4)
    """F-23 developer 5-point score (1…5) → signed magnitude."""
    half_life_sec: PositiveSeconds = 24 * 3600.0
    """``discounted_beta`` and ``calibrated``: evidence above the prior halves every this many seconds
    (a day). bench_learning (hourly fires): a drifted heuristic falls below the threshold after a
    median 15 fires (3 days: 30), with no loss of ranking."""
    channel_prior: dict[str, tuple[Probability, Probability]] = Field(
        default_factory=lambda: dict(_default_channel_prior())
    )
    """``calibrated``: per implicit outcome (``implicit_timeout``, ``implicit_undo``, ``implicit_ignored``,
    ``user_implicit``), P(outcome | the fire helped) and P(outcome | it did not), before rated fires teach
    the tenant's own (``heuristics.channel``). Outcomes left out keep their default; each column is
    normalised to sum to 1."""
    channel_prior_strength: float = Field(default=20.0, gt=0.0, le=1e6, allow_inf_nan=False)  # channel.py's default
    """``calibrated``: the prior weighs as much as this many rated fires of each kind."""

    @field_validator("channel_prior")
    @classmethod
    def _a_channel_prior(cls, given: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
        """Outcomes left out keep their default (a prior for one outcome does not zero the others);
        unknown outcomes and an empty column are refused, naming the outcomes that exist."""
        from phronesis.heuristics.channel import Channel

        merged = {**_default_channel_prior(), **given}
        Channel.prior(merged, 1.0)
        return merged

    @field_validator("strategy")
    @classmethod
    def _a_strategy(cls, name: str) -> str:
        if name not in STRATEGY_NAMES:
            raise ValueError(unknown_strategy(name))
        return name

    bounds_enabled: bool = False
    """F-05: keep every confidence within [min_confidence, max_confidence] (off by default, as in GLADyS)."""
    min_confidence: Probability = 0.05
    """With ``bounds_enabled`` (F-05): no update takes a heuristic's confidence below this (its own floor
    still holds when higher)."""
    max_confidence: Probability = 0.95
    """With ``bounds_enabled`` (F-05): no update takes a heuristic's confidence above this (its own ceiling
    still holds when lower); must exceed ``min_confidence``."""
    decay_k: float = Field(default=0.0, ge=0.0, le=100.0)
    """F-03 diminishing returns: a signal weighs ``magnitude / (1 + k·n)``, n = signals the heuristic had. 0: off."""
    implicit_signals: bool = True
    """Whether phronesis turns what follows a fire (an undo, thanks, silence, the timeout) into learning
    signals (seed 001). Off where the caller does that and sends the signals itself, as GLADyS's
    orchestrator does through ``UpdateHeuristicConfidence``: counting them here too would count each
    twice. Fires recorded while it is off are closed to implicit signals in every process sharing the
    database, and a decision's fire takes over the caller's record of the same fire (one count)."""
    sweep_interval_sec: PositiveSeconds = 5.0
    """How often the service turns fires older than the undo window into timeout positives."""
    max_clock_skew_sec: float = Field(default=5.0, ge=0.0, le=3600.0)
    """A timestamp further than this in the future is refused."""

    @model_validator(mode="after")
    def _bounds_ordered(self) -> LearningSettings:
        if self.min_confidence >= self.max_confidence:
            raise ValueError("min_confidence must be below max_confidence")
        return self
