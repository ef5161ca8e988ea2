"""Heuristic memory's settings section (``PHRONESIS_HEURISTICS__*``)."""

from __future__ import annotations

from pydantic import Field

from phronesis.schema import Schema
from phronesis.settings_parts import Probability

__all__ = ["HeuristicSettings"]


class HeuristicSettings(Schema):
    min_similarity: Probability = 0.7  # seed 000 / GLADyS SALIENCE_HEURISTIC_MIN_SIMILARITY
    """Seed 000's floor: a heuristic whose condition (or example) is less similar to the event is no candidate."""
    top_k: int = Field(default=5, ge=1, le=100)  # GLADyS max_evaluation_candidates
    """How many candidates an event is matched with (the best first)."""
    tie_epsilon: float = Field(default=0.02, ge=0.0, le=1.0)
    """Similarities closer than this count as a tie, broken by confidence (similarity-dominant)."""
    counter_margin: float = Field(default=0.0, ge=0.0, le=1.0)
    """A heuristic's scope: an event matches only if its best example is more than this
    nearer than its nearest counter-example."""
    prior_strength: float = Field(default=2.0, gt=0.0, le=1000.0)
    """Effective sample size of a new heuristic's prior: Beta(c·n, (1−c)·n). 2.0 is Beta(1,1) at 0.5."""
    default_confidence: Probability = 0.5
    """The confidence of a heuristic created without one."""
    max_text_chars: int = Field(default=4000, ge=16, le=100_000)
    """The longest condition, action or matched text, in characters; a longer one is refused naming the field."""
