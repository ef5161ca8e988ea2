"""Does an event fall in a heuristic's scope?

A heuristic applies to an event when the event is near one of its examples (its condition is
one) and nearer them than any of its counter-examples. Seed 000 matched the condition alone at
cosine ≥ 0.7, where opposites sit side by side ("too warm" 0.80 from "too cold") and a
paraphrase may not ("brr, the lounge is freezing", 0.45): examples widen where it applies,
counter-examples and opposites (``phronesis.contrast``) narrow it.

- a positive (the condition or an example) counts only if the event is not its opposite;
- the event's similarity to the heuristic is its best positive's, and it must reach the floor
  (``heuristics.min_similarity``, seed 000's 0.7);
- a counter-example counts only if the event is not its opposite either ("too warm" learned as a
  counter-example of a cold-room heuristic must not veto "too cold"); the event must be nearer
  its best positive than its best counter-example by ``counter_margin``.

Pure: texts and similarities in, a judgement out, with what decided it (the API and the dashboard
show it; a decision's record keeps it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from phronesis.contrast import contrast

__all__ = ["ScopeJudgement", "Situation", "judge_scope"]


@dataclass(frozen=True, slots=True)
class Situation:
    """A situation in a heuristic's scope and the event's cosine similarity to it: the condition
    (``id`` None) or an example, or a counter-example."""

    id: str | None
    text: str
    similarity: float


@dataclass(frozen=True, slots=True)
class ScopeJudgement:
    matches: bool
    similarity: float
    """The event's similarity to its best positive that is not its opposite (-1: none)."""
    matched_text: str | None
    """That positive's text."""
    matched_example_id: str | None
    """That positive's example id; None when it is the condition."""
    counter_similarity: float | None
    """The event's similarity to its nearest counter-example that is not its opposite (None: none)."""
    counter_text: str | None
    why_not: Literal["opposite", "below_floor", "counter_example"] | None
    """Why it does not match: every positive near enough is its opposite, none is near enough, or a
    counter-example is as near."""
    opposite: str | None = None
    """The opposition that ruled out a positive nearer than the best one ("opposite: cold/warm")."""

    opposed_similarity: float | None = None
    """The event's similarity to its nearest positive that is its opposite (None: none is)."""

    def why_set_aside(self, similarity: float | None = None) -> str:
        """Why a near candidate does not match, in words, with its similarity to the event (``similarity``,
        else the judgement's own: to the opposed positive, or to the counter-example): what a decision's
        record says of a heuristic it set aside (``candidates_set_aside``)."""
        if self.why_not == "counter_example" and self.counter_text is not None:
            near = self.counter_similarity if similarity is None else similarity
            return f"a counter-example is as near ({self.counter_text!r}), similarity {near or 0.0:.2f}"
        near = self.opposed_similarity if similarity is None else similarity
        said = self.opposite or ("opposite" if self.why_not == "opposite" else str(self.why_not))
        return said if near is None else f"{said}, similarity {near:.2f}"


def judge_scope(
    event_text: str,
    positives: Sequence[Situation],
    counters: Sequence[Situation],
    *,
    floor: float,
    counter_margin: float = 0.0,
) -> ScopeJudgement:
    """Whether ``event_text`` falls in the scope made of ``positives`` (the condition and the
    examples) and ``counters``, given its similarity to each."""
    best: Situation | None = None
    nearest_opposed: tuple[float, str] | None = None
    for positive in positives:
        opposed = contrast(event_text, positive.text)
        if opposed is not None:
            if nearest_opposed is None or positive.similarity > nearest_opposed[0]:
                nearest_opposed = (positive.similarity, opposed.describe())
        elif best is None or positive.similarity > best.similarity:
            best = positive
    counter: Situation | None = None
    for example in counters:
        if contrast(event_text, example.text) is None and (counter is None or example.similarity > counter.similarity):
            counter = example
    similarity = -1.0 if best is None else best.similarity
    opposite = nearest_opposed[1] if nearest_opposed is not None and nearest_opposed[0] > similarity else None
    why: Literal["opposite", "below_floor", "counter_example"] | None = None
    if similarity < floor:
        why = "opposite" if nearest_opposed is not None and nearest_opposed[0] >= floor else "below_floor"
    elif counter is not None and counter.similarity + counter_margin >= similarity:
        why = "counter_example"
    return ScopeJudgement(
        matches=why is None,
        similarity=similarity,
        matched_text=None if best is None else best.text,
        matched_example_id=None if best is None else best.id,
        counter_similarity=None if counter is None else counter.similarity,
        counter_text=None if counter is None else counter.text,
        why_not=why,
        opposite=opposite,
        opposed_similarity=None if nearest_opposed is None else nearest_opposed[0],
    )
