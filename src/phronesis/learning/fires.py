"""Heuristic firings: the only thing implicit signals may touch (ORIGINS bug 2's fix).

Each row remembers whether its one implicit signal was given (``implicit_source``) and
the explicit signal standing on it (last click wins), so neither channel counts twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.embeddings.types import Vectors
from phronesis.heuristics.evidence_writer import Retraction
from phronesis.ids import new_id
from phronesis.learning.types import FireRecord
from phronesis.storage.database import Database
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.tables import heuristic_fires, heuristics

__all__ = ["FireRepository", "StoredFire"]

_f = heuristic_fires.c


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

    @property
    def standing(self) -> Retraction | None:
        """The explicit rating standing on this fire, as the evidence that would take it back."""
        if self.explicit_source is None or self.explicit_positive is None or self.explicit_at is None:
            return None
        return Retraction(self.explicit_positive, self.explicit_weight or 0.0, self.explicit_at)

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
    ) -> FireRecord:
        """Queue the fire in ``transaction``: it is sent with the transaction's next statement or commit."""
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
        }
        await transaction.insert([(_INSERT, [row])])
        return FireRecord(fire_id, heuristic_id, event_id, source, fired_at)

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
