"""A tenant's calibrated duplicate threshold and pair judge (``phronesis admission calibrate``),
read by every admission (re-read at most every ``cache_s``: another process may calibrate)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.admission.pair_judge import PairJudge
from phronesis.clock import Clock
from phronesis.storage.database import Database
from phronesis.storage.tables import admission_calibrations

__all__ = ["Calibration", "CalibrationStore"]

c = admission_calibrations.c


@dataclass(frozen=True, slots=True)
class Calibration:
    duplicate_threshold: float
    pair_judge: PairJudge | None
    """None where it was calibrated before pair judges existed, or with other features."""

    @classmethod
    def of(cls, threshold: float, details: dict[str, Any] | None) -> Calibration:
        """A calibration as stored: its threshold and its details (where the judge is kept)."""
        stored = (details or {}).get("pair_judge")
        return cls(float(threshold), PairJudge.from_json(stored) if isinstance(stored, dict) else None)


class CalibrationStore:
    def __init__(self, database: Database, clock: Clock, *, cache_s: float = 5.0) -> None:
        self._db = database
        self._clock = clock
        self._cache_s = cache_s
        self._cache: dict[str, tuple[float, Calibration | None]] = {}

    async def current(self, tenant: str, *, connection: AsyncConnection | None = None) -> Calibration | None:
        """The tenant's calibration, re-read at most every ``cache_s`` (another process may calibrate)."""
        cached = self._cache.get(tenant)
        now = self._clock.monotonic()
        if cached is not None and now - cached[0] < self._cache_s:
            return cached[1]
        query = select(c.duplicate_threshold, c.details).where(c.tenant == tenant)
        if connection is not None:
            row = (await connection.execute(query)).one_or_none()
        else:
            async with self._db.connect() as conn:
                row = (await conn.execute(query)).one_or_none()
        calibration = None if row is None else Calibration.of(row.duplicate_threshold, row.details)
        self._cache[tenant] = (now, calibration)
        return calibration

    async def duplicate_threshold(self, tenant: str, *, connection: AsyncConnection | None = None) -> float | None:
        calibration = await self.current(tenant, connection=connection)
        return None if calibration is None else calibration.duplicate_threshold

    async def get(self, tenant: str) -> dict[str, Any] | None:
        async with self._db.connect() as conn:
            row = (await conn.execute(select(admission_calibrations).where(c.tenant == tenant))).one_or_none()
        if row is None:
            return None
        return {"duplicate_threshold": row.duplicate_threshold, "created_at": row.created_at.isoformat()} | dict(
            row.details
        )

    async def save(self, tenant: str, threshold: float, details: dict[str, Any]) -> None:
        values = {
            "tenant": tenant,
            "duplicate_threshold": threshold,
            "details": details,
            "created_at": self._clock.now(),
        }
        async with self._db.transaction() as conn:
            await conn.execute(delete(admission_calibrations).where(c.tenant == tenant))
            await conn.execute(insert(admission_calibrations), values)
        self._cache[tenant] = (self._clock.monotonic(), Calibration.of(threshold, details))

    async def clear(self, tenant: str) -> bool:
        async with self._db.transaction() as conn:
            result = await conn.execute(delete(admission_calibrations).where(c.tenant == tenant))
        self._cache.pop(tenant, None)
        return bool(result.rowcount)
