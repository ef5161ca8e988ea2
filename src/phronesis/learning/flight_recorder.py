"""GLADyS's flight recorder over phronesis's fires (seed 001's ``on_fire``, as GLADyS's memory
serves it): a fire its caller records (``RecordHeuristicFire``), what came of it
(``UpdateFireOutcome``), the fires still waiting for an outcome (``GetPendingFires``) and the list
(``ListFires``).

An outcome is a record, not evidence. The caller sends its learning signal separately
(``UpdateHeuristicConfidence``), so moving the confidence here as well would count the same
feedback twice. A fire is recorded once per heuristic and event: a caller recording a fire the
executive already recorded for that event gets that fire back, not a second count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal, get_args

from phronesis.clock import Clock
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.heuristics.repository import HeuristicRepository
from phronesis.learning.fires import FireRepository, StoredFire
from phronesis.learning.models import FireRequest
from phronesis.learning.module import LearningModule
from phronesis.storage.database import Database

__all__ = ["FlightFire", "FlightRecorder", "Outcome"]

Outcome = Literal["success", "fail", "unknown"]
"""What came of a fire, as GLADyS names it; ``unknown`` is none yet (a pending fire)."""

OUTCOMES: tuple[str, ...] = get_args(Outcome)
MAX_PAGE = 1000


@dataclass(frozen=True, slots=True)
class FlightFire:
    """A fire with what a reader of the recorder sees of its heuristic."""

    fire: StoredFire
    heuristic_name: str | None
    condition_text: str
    confidence: float

    @property
    def outcome(self) -> Outcome:
        """The outcome its caller recorded, else the rating standing on it (``FireRepository``)."""
        settled, _ = self.fire.settled
        return "success" if settled == "success" else "fail" if settled == "fail" else "unknown"

    @property
    def said_by(self) -> str | None:
        """Who said what came of it: the outcome's source, else the rating's."""
        return self.fire.settled[1]


def outcome_of(value: str, field: str = "outcome") -> Outcome:
    """A caller's outcome (``pending`` reads as ``unknown``), or the error naming the field and the
    outcomes there are."""
    value = "unknown" if value == "pending" else value
    for outcome in get_args(Outcome):
        if value == outcome:
            return outcome  # type: ignore[no-any-return]
    raise InvalidInputError(field, f"must be one of {', '.join(OUTCOMES)} (got {value!r})")


class FlightRecorder:
    def __init__(
        self, learning: LearningModule, heuristics: HeuristicRepository, database: Database, clock: Clock
    ) -> None:
        self._learning = learning
        self._heuristics = heuristics
        self._fires = FireRepository()
        self._database = database
        self._clock = clock

    async def record(
        self, tenant: str, heuristic_id: str, *, event_id: str, episodic_event_id: str | None = None, source: str = ""
    ) -> str:
        """The fire's id: the one already recorded for this heuristic and event, else a new one (counted,
        and watched for implicit signals unless the caller sends those: ``learning.implicit_signals``)."""
        request = FireRequest(event_id=event_id, source=source)  # bounds the caller's text as the API does
        async with self._database.connect() as conn:
            existing = await self._fires.of_event(conn, tenant, heuristic_id, request.event_id)
        if existing is not None:
            if episodic_event_id and existing.episodic_event_id != episodic_event_id:
                async with self._database.transaction() as conn:
                    await self._fires.link_episode(conn, existing.id, episodic_event_id)
            return existing.id
        fire = await self._learning.record_fire(tenant, heuristic_id, request, episodic_event_id=episodic_event_id)
        assert fire is not None  # not missing_ok: an unknown heuristic raised
        return fire.id

    async def set_outcome(self, tenant: str, fire_id: str, outcome: str, *, source: str | None) -> None:
        """Record what came of a fire (``unknown`` takes a recorded outcome back). No confidence moves."""
        chosen = outcome_of(outcome)
        async with self._database.transaction() as conn:
            found = await self._fires.set_outcome(
                conn,
                tenant,
                fire_id,
                outcome=None if chosen == "unknown" else chosen,
                source=(source or None) if chosen != "unknown" else None,
                at=self._clock.now(),
            )
        if not found:
            raise NotFoundError("fire", fire_id)

    async def pending(
        self, tenant: str, *, heuristic_id: str | None = None, max_age_s: float | None = None, limit: int = MAX_PAGE
    ) -> list[FlightFire]:
        """Fires with no outcome yet (none recorded, none rated), newest first: of one heuristic (it
        must exist) or all, fired within ``max_age_s`` or ever."""
        if heuristic_id is not None:
            await self._heuristics.get(tenant, heuristic_id)  # NotFoundError: not an empty list
        since = None if max_age_s is None else self._clock.now() - timedelta(seconds=max_age_s)
        async with self._database.connect() as conn:
            rows = await self._fires.pending(conn, tenant, heuristic_id=heuristic_id, since=since, limit=limit)
        return [FlightFire(fire, name, condition, confidence) for fire, name, condition, confidence in rows]

    async def page(
        self, tenant: str, *, outcome: str | None = None, limit: int = 100, offset: int = 0
    ) -> tuple[list[FlightFire], int]:
        """Fires newest first (with one outcome, or any), and how many there are in all."""
        chosen = None if outcome is None else outcome_of(outcome)
        if not 1 <= limit <= MAX_PAGE:
            raise InvalidInputError("limit", f"must be between 1 and {MAX_PAGE}")
        if offset < 0:
            raise InvalidInputError("offset", "must not be negative")
        async with self._database.connect() as conn:
            rows, total = await self._fires.page(conn, tenant, outcome=chosen, limit=limit, offset=offset)
        return [FlightFire(fire, name, condition, confidence) for fire, name, condition, confidence in rows], total
