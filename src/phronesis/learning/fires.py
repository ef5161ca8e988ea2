"""Heuristic firings: the only thing implicit signals may touch (ORIGINS bug 2's fix).

Each row remembers whether its one implicit signal was given (``implicit_source``) and
the explicit signal standing on it (last click wins), so neither channel counts twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.embeddings.types import Vectors
from phronesis.heuristics.evidence_writer import Retraction
from phronesis.ids import new_id
from phronesis.learning.types import FireRecord
from phronesis.storage.database import Database
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.tables import heuristic_fires, heuristics

__all__ = ["CALLER", "FireRepository", "StoredFire"]

_f = heuristic_fires.c

CALLER = "caller"
"""``implicit_source`` of a fire whose implicit signals its caller sends itself (``learning.implicit_signals``
off: GLADyS's orchestrator). Closed from the start, no sweep, follow-up or timeout here gives it one, in
any process sharing the database; it is not an outcome the channel learns from."""


@dataclass(frozen=True, slots=True)
class StoredFire(FireRecord):
    """A fire with both channels' state."""

    tenant: str = ""
    implicit_source: str | None = None
    explicit_source: str | None = None
    explicit_positive: bool | None = None
    explicit_weight: float | None = None
    explicit_at: datetime | None = None
    event_text: str | None = None
    """The event that caused it (what a negative outcome is compared with); None when not kept."""
    event_vector: Vectors | None = None
    response_id: str | None = None
    """The executive decision it belongs to, if any (what a follow-up may name as ``reply_to``)."""
    probation_of: str | None = None
    """A probation fire (``executive.recovery``): the key of the undo it takes back if it goes well."""
    outcome: str | None = None
    """The outcome a caller recorded (``success`` / ``fail``; GLADyS's ``UpdateFireOutcome``), which
    moves no confidence; None while unknown."""
    outcome_source: str | None = None
    outcome_at: datetime | None = None
    episodic_event_id: str | None = None
    implicit_positive: bool | None = None
    """What a confirming implicit outcome (an undo, a thanks or a complaint) said of the fire; None
    for none, or for one that confirms nothing (a timeout, an ignore)."""

    @property
    def settled(self) -> tuple[str | None, str | None]:
        """What came of the fire and who said so: the outcome its caller recorded, else the rating
        standing on it (``success`` / ``fail``); (None, None) while neither is."""
        if self.outcome is not None:
            return self.outcome, self.outcome_source
        if self.explicit_positive is not None:
            return ("success" if self.explicit_positive else "fail"), self.explicit_source
        return None, None

    @property
    def standing(self) -> Retraction | None:
        """The explicit rating standing on this fire, as the evidence that would take it back."""
        if self.explicit_source is None or self.explicit_positive is None or self.explicit_at is None:
            return None
        return Retraction(self.explicit_positive, self.explicit_weight or 0.0, self.explicit_at)

    @property
    def standing_named(self) -> str | None:
        """The standing rating as a history names what a step took back (``negative user_explicit``)."""
        if self.explicit_positive is None:
            return None
        return f"{'positive' if self.explicit_positive else 'negative'} {self.explicit_source}"

    @classmethod
    def from_row(cls, row: Any) -> StoredFire:
        return cls(
            id=row.id,
            heuristic_id=row.heuristic_id,
            event_id=row.event_id,
            source=row.source,
            fired_at=row.fired_at,
            tenant=row.tenant,
            implicit_source=row.implicit_source,
            explicit_source=row.explicit_source,
            explicit_positive=row.explicit_positive,
            explicit_weight=row.explicit_weight,
            explicit_at=row.explicit_at,
            event_text=row.event_text,
            event_vector=row.event_embedding,
            response_id=row.response_id,
            probation_of=row.probation_of,
            outcome=row.outcome,
            outcome_source=row.outcome_source,
            outcome_at=row.outcome_at,
            episodic_event_id=row.episodic_event_id,
            implicit_positive=row.implicit_positive,
        )


_INSERT = heuristic_fires.insert()

_LATEST_OPEN = (
    select(heuristic_fires, heuristics.c.action_text)
    .join(heuristics, (heuristics.c.tenant == _f.tenant) & (heuristics.c.id == _f.heuristic_id))
    .where(
        _f.tenant == bindparam("tenant"),
        _f.source == bindparam("source"),
        _f.fired_at >= bindparam("since"),
        _f.fired_at <= bindparam("until"),
        _f.implicit_source.is_(None),
    )
    .order_by(_f.fired_at.desc(), _f.id.desc())
    .limit(bindparam("limit"))
)


# caller mode: the decision takes over the caller's own record of the same fire (RecordHeuristicFire
# came first), so the fire is counted once
_ADOPT = (
    update(heuristic_fires)
    .where(
        _f.tenant == bindparam("w_tenant"),
        _f.heuristic_id == bindparam("w_heuristic"),
        _f.event_id == bindparam("w_event"),
        _f.response_id.is_(None),
    )
    .values(
        response_id=bindparam("response_id"),
        event_text=bindparam("event_text"),
        event_embedding=bindparam("event_embedding"),
    )
    .returning(_f.id, _f.fired_at)
)


_OUTCOME: dict[str, list[Any]] = {
    "unknown": [_f.outcome.is_(None), _f.explicit_positive.is_(None)],
    "success": [or_(_f.outcome == "success", and_(_f.outcome.is_(None), _f.explicit_positive.is_(True)))],
    "fail": [or_(_f.outcome == "fail", and_(_f.outcome.is_(None), _f.explicit_positive.is_(False)))],
}
"""A fire's outcome as a reader sees it: the one its caller recorded, else the rating standing on it."""


class _Row:
    """A read's tuple as ``StoredFire.from_row`` reads a row: by attribute."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


class FireRepository:
    async def add(
        self,
        transaction: PointTransaction,
        tenant: str,
        heuristic_id: str,
        *,
        event_id: str,
        source: str,
        fired_at: datetime,
        response_id: str | None = None,
        event_text: str | None = None,
        event_vector: Vectors | None = None,
        probation_of: str | None = None,
        caller_learns: bool = False,
        episodic_event_id: str | None = None,
    ) -> FireRecord:
        """Queue the fire in ``transaction``: it is sent with the transaction's next statement or commit.
        ``caller_learns``: its caller sends its implicit signals itself, so it is closed to ours (``CALLER``)."""
        fire_id = new_id()
        row = {
            "id": fire_id,
            "tenant": tenant,
            "heuristic_id": heuristic_id,
            "event_id": event_id,
            "source": source,
            "response_id": response_id,
            "fired_at": fired_at,
            "event_text": event_text,
            "event_embedding": event_vector,
            "probation_of": probation_of,
            "implicit_source": CALLER if caller_learns else None,
            "implicit_at": fired_at if caller_learns else None,
            "episodic_event_id": episodic_event_id,
        }
        await transaction.insert([(_INSERT, [row])])
        return FireRecord(fire_id, heuristic_id, event_id, source, fired_at)

    async def adopt(
        self,
        transaction: PointTransaction,
        tenant: str,
        heuristic_id: str,
        *,
        event_id: str,
        response_id: str | None,
        event_text: str | None,
        event_vector: Vectors | None,
    ) -> FireRecord | None:
        """The caller's own record of this fire (same heuristic and event, no decision yet) becomes the
        decision's; None when there is none."""
        parameters = {
            "w_tenant": tenant,
            "w_heuristic": heuristic_id,
            "w_event": event_id,
            "response_id": response_id,
            "event_text": event_text,
            "event_embedding": event_vector,
        }
        rows, _ = await transaction.execute(_ADOPT, parameters)
        if not rows:
            return None
        fire_id, fired_at = rows[0]
        return FireRecord(fire_id, heuristic_id, event_id, "", fired_at)

    async def of_event(self, conn: AsyncConnection, tenant: str, heuristic_id: str, event_id: str) -> StoredFire | None:
        """The first fire of this heuristic for this event, if any."""
        query = (
            select(heuristic_fires)
            .where(_f.tenant == tenant, _f.heuristic_id == heuristic_id, _f.event_id == event_id)
            .order_by(_f.fired_at, _f.id)
            .limit(1)
        )
        row = (await conn.execute(query)).one_or_none()
        return None if row is None else StoredFire.from_row(row)

    async def set_outcome(
        self, conn: AsyncConnection, tenant: str, fire_id: str, *, outcome: str | None, source: str | None, at: datetime
    ) -> bool:
        """Record what came of a fire (a record only: no evidence moves). False: no such fire."""
        result = await conn.execute(
            update(heuristic_fires)
            .where(_f.tenant == tenant, _f.id == fire_id)
            .values(outcome=outcome, outcome_source=source, outcome_at=at)
        )
        return result.rowcount > 0

    async def link_episode(self, conn: AsyncConnection, fire_id: str, episodic_event_id: str) -> None:
        await conn.execute(update(heuristic_fires).where(_f.id == fire_id).values(episodic_event_id=episodic_event_id))

    async def pending(
        self, conn: AsyncConnection, tenant: str, *, heuristic_id: str | None, since: datetime | None, limit: int
    ) -> list[tuple[StoredFire, str | None, str, float]]:
        """Fires with no outcome yet (none recorded, none rated), newest first, each with its
        heuristic's name, condition and confidence: of one heuristic or every one, since a time or ever."""
        where = [_f.tenant == tenant, *_OUTCOME["unknown"]]
        if heuristic_id is not None:
            where.append(_f.heuristic_id == heuristic_id)
        if since is not None:
            where.append(_f.fired_at >= since)
        rows, _ = await self._listed(conn, where, limit=limit, offset=0, count=False)
        return rows

    async def page(
        self, conn: AsyncConnection, tenant: str, *, outcome: str | None, limit: int, offset: int
    ) -> tuple[list[tuple[StoredFire, str | None, str, float]], int]:
        """Fires newest first, each with its heuristic's name, condition and confidence, and how many
        there are in all. An outcome is the one recorded, else the rating standing on the fire."""
        where = [_f.tenant == tenant, *(_OUTCOME[outcome] if outcome is not None else [])]
        return await self._listed(conn, where, limit=limit, offset=offset, count=True)

    async def _listed(
        self, conn: AsyncConnection, where: list[Any], *, limit: int, offset: int, count: bool
    ) -> tuple[list[tuple[StoredFire, str | None, str, float]], int]:
        h = heuristics.c
        total = (
            (await conn.execute(select(func.count()).select_from(heuristic_fires).where(*where))).scalar_one()
            if count
            else 0
        )
        query = (
            select(heuristic_fires, h.name, h.condition_text, h.confidence)
            .join(heuristics, (h.tenant == _f.tenant) & (h.id == _f.heuristic_id))
            .where(*where)
            .order_by(_f.fired_at.desc(), _f.id.desc())
            .limit(limit)
            .offset(offset)
        )
        rows = await conn.execute(query)
        return [(StoredFire.from_row(r), r.name, r.condition_text, float(r.confidence)) for r in rows], int(total)

    async def get(self, conn: AsyncConnection, tenant: str, fire_id: str) -> StoredFire | None:
        row = (await conn.execute(select(heuristic_fires).where(_f.tenant == tenant, _f.id == fire_id))).one_or_none()
        return None if row is None else StoredFire.from_row(row)

    async def for_response(self, conn: AsyncConnection, tenant: str, response_id: str) -> StoredFire | None:
        row = (
            await conn.execute(
                select(heuristic_fires).where(_f.tenant == tenant, _f.response_id == response_id).limit(1)
            )
        ).one_or_none()
        return None if row is None else StoredFire.from_row(row)

    async def latest_open_from_source(
        self, database: Database, tenant: str, source: str, since: datetime, until: datetime, limit: int
    ) -> list[tuple[StoredFire, str]]:
        """The ``limit`` latest fires from ``source`` in [since, until] with no implicit signal yet,
        newest first, each with its heuristic's action: one short read outside any transaction,
        bounded whatever the source's rate."""
        rows = await database.read(
            _LATEST_OPEN, {"tenant": tenant, "source": source, "since": since, "until": until, "limit": limit}
        )
        names = [c.name for c in heuristic_fires.c]
        return [(StoredFire.from_row(_Row(dict(zip(names, row[:-1], strict=True)))), row[-1]) for row in rows]

    async def due(self, conn: AsyncConnection, cutoff: datetime, limit: int) -> list[StoredFire]:
        """Open fires older than ``cutoff``, every tenant, oldest first."""
        query = (
            select(heuristic_fires)
            .where(_f.implicit_source.is_(None), _f.fired_at <= cutoff)
            .order_by(_f.fired_at, _f.id)
            .limit(limit)
        )
        return [StoredFire.from_row(row) for row in await conn.execute(query)]

    async def close(
        self, conn: AsyncConnection, fire_ids: Sequence[str], source: str, at: datetime
    ) -> dict[str, StoredFire]:
        """Give these fires their implicit signal; returns those that were still open (a racing closer
        loses), as they are now: a rating that committed since the caller read them is in them."""
        if not fire_ids:
            return {}
        result = await conn.execute(
            update(heuristic_fires)
            .where(_f.id.in_(list(fire_ids)), _f.implicit_source.is_(None))
            .values(implicit_source=source, implicit_at=at)
            .returning(*heuristic_fires.c)
        )
        return {fire.id: fire for fire in map(StoredFire.from_row, result)}

    async def set_explicit(
        self, conn: AsyncConnection, fire_id: str, *, source: str, positive: bool, weight: float, at: datetime
    ) -> None:
        await conn.execute(
            update(heuristic_fires)
            .where(_f.id == fire_id)
            .values(explicit_source=source, explicit_positive=positive, explicit_weight=weight, explicit_at=at)
        )

    async def set_implicit_outcome(self, conn: AsyncConnection, fire_id: str, positive: bool) -> None:
        await conn.execute(update(heuristic_fires).where(_f.id == fire_id).values(implicit_positive=positive))

    async def clear_explicit(self, conn: AsyncConnection, fire_id: str) -> None:
        """No rating stands on the fire any more (a neutral click replaced it)."""
        await conn.execute(
            update(heuristic_fires)
            .where(_f.id == fire_id)
            .values(explicit_source=None, explicit_positive=None, explicit_weight=None, explicit_at=None)
        )

    async def bump_ignore_streak(self, conn: AsyncConnection, tenant: str, heuristic_id: str) -> int:
        h = heuristics.c
        result = await conn.execute(
            update(heuristics)
            .where(h.tenant == tenant, h.id == heuristic_id)
            .values(ignore_streak=h.ignore_streak + 1)
            .returning(h.ignore_streak)
        )
        return int(result.scalar_one())

    async def reset_ignore_streak(self, conn: AsyncConnection, tenant: str, heuristic_ids: Sequence[str]) -> None:
        if heuristic_ids:
            h = heuristics.c
            await conn.execute(
                update(heuristics)
                .where(and_(h.tenant == tenant, h.id.in_(list(heuristic_ids)), h.ignore_streak != 0))
                .values(ignore_streak=0)
            )
