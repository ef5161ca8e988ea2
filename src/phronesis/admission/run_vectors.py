"""The runs index's seam: what admission needs from wherever its runs' vectors are searched.

``RunIndex`` holds them in this process (exact or HNSW per scope, following the change feed,
saved in snapshots); ``PgVectorRuns`` leaves them in PostgreSQL (pgvector), where every
worker searches the same committed rows and holds nothing. The admission tests run on both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.admission.run_index import IndexChange
from phronesis.embeddings.types import Vectors
from phronesis.storage.database import Database
from phronesis.storage.pgvector import PgVectorColumn
from phronesis.storage.vector_backend import VectorBackend

__all__ = ["ChosenRuns", "PgVectorRuns", "RunVectors"]


class RunVectors(Protocol):
    @property
    def loaded(self) -> bool: ...

    def __len__(self) -> int:
        """Vectors held in this process (0 where the database searches)."""
        ...

    def kinds(self) -> dict[str, int]: ...

    async def load(self, progress: Callable[[int], None] | None = None) -> int: ...

    async def sync(self, connection: AsyncConnection | None = None) -> None:
        """Bring the search up to every committed run (before ``find_many``)."""
        ...

    async def find_many(
        self, tenant: str, agent_id: str, user_id: str, vectors: Vectors, k: int
    ) -> list[list[tuple[str, float]]]:
        """The top ``k`` active runs of one scope for each row of ``vectors``, most similar first."""
        ...

    def committed(self, tenant: str, changes: Sequence[IndexChange]) -> None:
        """An admission's changes, just committed."""
        ...

    async def close(self) -> None: ...


class PgVectorRuns:
    """Active runs searched with pgvector: the scope and ``status = 'active'`` are in the query,
    and an admission's transaction writes the new run's vector column (``RunRepository``)."""

    loaded = True

    def __init__(self, database: Database) -> None:
        self._db = database
        self._column = PgVectorColumn.of("admission_runs")

    def __len__(self) -> int:
        return 0

    def kinds(self) -> dict[str, int]:
        return {"pgvector": 1}

    async def load(self, progress: Callable[[int], None] | None = None) -> int:
        return 0

    async def sync(self, connection: AsyncConnection | None = None) -> None:
        return None  # the database is the index: a committed run is searched at once

    async def find_many(
        self, tenant: str, agent_id: str, user_id: str, vectors: Vectors, k: int
    ) -> list[list[tuple[str, float]]]:
        c = self._column.table.c
        scope = (c.agent_id == agent_id, c.user_id == user_id, c.status == "active")
        out = []
        for vector in np.atleast_2d(np.asarray(vectors, dtype=np.float32)):
            found = await self._column.search(self._db, tenant, vector, k, *scope)
            out.append([(key, score) for key, score, _ in found])
        return out

    def committed(self, tenant: str, changes: Sequence[IndexChange]) -> None:
        return None  # the admission's transaction wrote the vectors

    async def close(self) -> None:
        return None


class ChosenRuns:
    """The runs index the engine's ``VectorBackend`` chose: this process's (``in_process``) or
    PostgreSQL's (``in_database``), asked at each use, so admission's parts are built once."""

    def __init__(self, backend: VectorBackend, in_process: RunVectors, in_database: RunVectors) -> None:
        self._backend = backend
        self._in_process = in_process
        self._in_database = in_database

    @property
    def chosen(self) -> RunVectors:
        return self._in_database if self._backend.in_database else self._in_process

    @property
    def loaded(self) -> bool:
        return self.chosen.loaded

    def __len__(self) -> int:
        return len(self.chosen)

    def kinds(self) -> dict[str, int]:
        return self.chosen.kinds()

    async def load(self, progress: Callable[[int], None] | None = None) -> int:
        return await self.chosen.load(progress)

    async def sync(self, connection: AsyncConnection | None = None) -> None:
        await self.chosen.sync(connection)

    async def find_many(
        self, tenant: str, agent_id: str, user_id: str, vectors: Vectors, k: int
    ) -> list[list[tuple[str, float]]]:
        return await self.chosen.find_many(tenant, agent_id, user_id, vectors, k)

    def committed(self, tenant: str, changes: Sequence[IndexChange]) -> None:
        self.chosen.committed(tenant, changes)

    async def close(self) -> None:
        await self.chosen.close()
