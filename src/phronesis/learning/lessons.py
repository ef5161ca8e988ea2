"""Which lesson a signal teaches: a wrong match and a wrong action are different mistakes.

Were a heuristic one number, every negative would lower it, whether its action was wrong or it
had fired for a situation it was never meant for ("the living room is too warm" firing "raise the
thermostat"). A learner that can only lower a number destroys good knowledge to fix a bad match.
GLADyS's own notes leave it open ("feedback-signal-decomposition": a rating mixes match quality
with response quality). Here the event that caused the fire is kept with it, and the lesson is
read from how it stands to what the heuristic is confirmed to apply to (its condition and its
examples):

- a negative outcome (a negative rating, an undo, a complaint, ignores) on an event **unlike**
  them (best cosine below ``like_similarity``) is a ``wrong_match``: the event becomes a
  counter-example, the confidence is unchanged;
- a negative on an event **like** them is a ``wrong_action``: the confidence goes down;
- a positive (a positive rating, thanks) on an event not yet among them is a ``new_example``:
  it becomes one (and the confidence goes up too); on one it knows, ``confirmed``;
- a fire kept without its event (recorded through the API without ``event_text``, or stored
  before fires kept their event) teaches by confidence alone: ``event_unknown``, the confidence moves.

A later rating of the same fire takes back what the earlier one taught (last click wins).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.contrast import contrast
from phronesis.heuristics.examples import NewExample, StoredExample
from phronesis.heuristics.memory import HeuristicMemory
from phronesis.learning.fires import StoredFire

__all__ = ["Lesson", "LessonKind", "LessonTeacher"]

LessonKind = Literal["wrong_match", "wrong_action", "new_example", "confirmed", "event_unknown"]

KNOWN_SIMILARITY = 0.98
"""A positive event this near an example is that example again: nothing new to add."""


@dataclass(frozen=True, slots=True)
class Lesson:
    kind: LessonKind
    why: str
    similarity: float | None = None
    """The event's similarity to the nearest of what the heuristic is confirmed to apply to."""

    @property
    def moves_confidence(self) -> bool:
        """A wrong match teaches the scope only; every other lesson moves the confidence as the signal says."""
        return self.kind != "wrong_match"

    def details(self) -> dict[str, object]:
        """What the history keeps of it (``HistoryEntry.lesson`` and ``why``)."""
        return {"lesson": self.kind, "why": self.why}


def _nearest(fire: StoredFire, positives: Sequence[StoredExample]) -> tuple[float, str] | None:
    """The event's best cosine to a confirmed situation that is not its opposite, and that situation."""
    assert fire.event_vector is not None and fire.event_text is not None
    usable = [p for p in positives if p.vector is not None and len(p.vector) == len(fire.event_vector)]
    usable = [p for p in usable if contrast(fire.event_text, p.text) is None]
    if not usable:
        return None
    similarities = np.stack([p.vector for p in usable if p.vector is not None]) @ fire.event_vector
    best = int(np.argmax(similarities))
    return float(similarities[best]), usable[best].text


class LessonTeacher:
    def __init__(self, memory: HeuristicMemory, *, like_similarity: float) -> None:
        self._memory = memory
        self.like_similarity = like_similarity

    async def negative(self, conn: AsyncConnection, tenant: str, fire: StoredFire, source: str) -> Lesson:
        """A negative outcome of ``fire``: a wrong match (its event becomes a counter-example) or a
        wrong action (the caller lowers the confidence)."""
        if fire.event_text is None or fire.event_vector is None:
            return Lesson("event_unknown", "the fire kept no event text: taken as the action's fault")
        nearest = _nearest(fire, await self._memory.examples.positives(conn, tenant, fire.heuristic_id))
        if nearest is not None and nearest[0] >= self.like_similarity:
            similarity, text = nearest
            return Lesson(
                "wrong_action",
                f"the event is like {text!r} (similarity {similarity:.2f} ≥ {self.like_similarity:.2f}), a situation "
                "it is meant for: the action did not help",
                similarity,
            )
        await self._memory.learn_examples(
            conn,
            tenant,
            fire.heuristic_id,
            [NewExample("counter", fire.event_text, fire.event_vector, "learned", source, fire.event_id, fire.id)],
        )
        where = "nothing it is meant for" if nearest is None else f"{nearest[1]!r} at {nearest[0]:.2f}"
        return Lesson(
            "wrong_match",
            f"the event is unlike its examples (nearest {where}, below {self.like_similarity:.2f}): it fired where it "
            "does not apply, so the event is now a counter-example and its confidence is unchanged",
            None if nearest is None else nearest[0],
        )

    async def positive(self, conn: AsyncConnection, tenant: str, fire: StoredFire, source: str) -> Lesson:
        """A positive outcome of ``fire``: its event added as an example when it is a situation the
        heuristic did not list yet."""
        if fire.event_text is None or fire.event_vector is None:
            return Lesson("event_unknown", "the fire kept no event text: the confidence alone moves")
        nearest = _nearest(fire, await self._memory.examples.positives(conn, tenant, fire.heuristic_id))
        if nearest is not None and nearest[0] >= KNOWN_SIMILARITY:
            return Lesson("confirmed", f"it helped for {nearest[1]!r}, a situation it knew", nearest[0])
        await self._memory.learn_examples(
            conn,
            tenant,
            fire.heuristic_id,
            [NewExample("example", fire.event_text, fire.event_vector, "learned", source, fire.event_id, fire.id)],
        )
        return Lesson(
            "new_example",
            "it helped for a situation it did not list: the event is now one of its examples",
            None if nearest is None else nearest[0],
        )

    async def take_back(self, conn: AsyncConnection, tenant: str, fire: StoredFire, sources: Sequence[str]) -> int:
        """What ``fire``'s earlier signals from ``sources`` taught the scope, removed (a later click replaces it)."""
        return await self._memory.unlearn(conn, tenant, fire.id, sources)
