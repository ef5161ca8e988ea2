"""Taking runs out of memory (issue 23): deleting one run, and retention for superseded runs.

Admission never deletes (seed 003: REPLACE supersedes); people do. Deleting a run, in one
transaction:

- the runs it superseded (REPLACE) are active again: the better version is gone, so memory
  falls back to what it replaced, searched again by every process (feed entries ``add``);
- its merge group keeps its other active members, with the group's rule (the best outcome,
  the newer on a tie) choosing the canonical run again if the deleted one was canonical; a
  group left with one active run is no group (that run is canonical and alone);
- the run, its references and artifacts are deleted (feed entry ``remove``); the memory
  decisions that name it stay, as the record of what was decided then.

Retention (``admission.superseded_retention_days``, off by default) deletes runs superseded for
longer than that, with their references and artifacts; they are in no index and no group.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, delete, select, update

from phronesis.admission.models import OUTCOME_RANK
from phronesis.admission.run_index import IndexChange
from phronesis.admission.run_vectors import RunVectors
from phronesis.clock import Clock
from phronesis.embeddings.types import Vectors
from phronesis.exceptions import NotFoundError
from phronesis.storage.change_feed import INSERT_CHANGES, change_rows
from phronesis.storage.database import Database
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.tables import admission_run_artifacts, admission_run_references, admission_runs

__all__ = ["DeletedRun", "RunRemoval"]

log = logging.getLogger("phronesis.admission")
runs = admission_runs.c


@dataclass(frozen=True, slots=True)
class DeletedRun:
    run_id: str
    restored: list[str]
    """Runs it had superseded, active again."""
    canonical: str | None
    """Its merge group's canonical run now, if it was in one."""


class RunRemoval:
    def __init__(self, database: Database, clock: Clock, index: RunVectors) -> None:
        self._db = database
        self._clock = clock
        self._index = index

    async def delete(self, tenant: str, run_id: str) -> DeletedRun:
        now = self._clock.now()
        async with self._db.point_transaction() as tx:
            found, _ = await tx.execute(
                select(runs.agent_id, runs.user_id, runs.merge_group)
                .where(runs.tenant == tenant, runs.id == run_id)
                .with_for_update(),
                {},
            )
            if not found:
                raise NotFoundError("run", run_id)
            agent_id, user_id, group = found[0]
            restored_rows, _ = await tx.execute(
                select(runs.id, runs.merge_group)
                .where(runs.tenant == tenant, runs.superseded_by == run_id, runs.status == "superseded")
                .with_for_update(),
                {},
            )
            restored = [row[0] for row in restored_rows]
            if restored:
                await tx.execute(
                    update(admission_runs)
                    .where(runs.tenant == tenant, runs.id.in_(restored))
                    .values(status="active", superseded_by=None, superseded_at=None, canonical=False, updated_at=now),
                    {},
                )
            for table in (admission_run_references, admission_run_artifacts):
                await tx.execute(delete(table).where(table.c.tenant == tenant, table.c.run_id == run_id), {})
            await tx.execute(delete(admission_runs).where(runs.tenant == tenant, runs.id == run_id), {})
            groups = {g for g in [group, *(row[1] for row in restored_rows)] if g is not None}
            alone = [rid for rid, g in restored_rows if g is None]
            canonical = None
            for g in groups:
                chosen = await self._elect(tx, tenant, g, now)
                canonical = chosen if g == group else canonical
            if alone:
                await tx.execute(
                    update(admission_runs)
                    .where(runs.tenant == tenant, runs.id.in_(alone))
                    .values(canonical=True, updated_at=now),
                    {},
                )
            ops = [("remove", run_id), *(("add", rid) for rid in restored)]
            await tx.execute(INSERT_CHANGES, change_rows("runs", tenant, ops, now))  # type: ignore[arg-type]
            vectors = await self._vectors(tx, tenant, restored)
        changes = [IndexChange("remove", run_id, agent_id, user_id)] + [
            IndexChange("add", rid, agent_id, user_id, vectors[rid]) for rid in restored if rid in vectors
        ]
        self._index.committed(tenant, changes)
        log.info("run %s deleted (tenant %s); %d superseded run(s) active again", run_id, tenant, len(restored))
        return DeletedRun(run_id, restored, canonical)

    async def _elect(self, tx: PointTransaction, tenant: str, group: str, now: datetime) -> str | None:
        """The group's canonical run by its rule (best outcome, newer on a tie); a group left with
        one active run is dissolved."""
        members, _ = await tx.execute(
            select(runs.id, runs.outcome, runs.created_at)
            .where(runs.tenant == tenant, runs.merge_group == group, runs.status == "active")
            .with_for_update(),
            {},
        )
        if not members:
            return None
        best = str(max(members, key=lambda m: (OUTCOME_RANK[m[1]], m[2], m[0]))[0])
        ids = [m[0] for m in members]
        if len(ids) == 1:
            await tx.execute(
                update(admission_runs)
                .where(runs.tenant == tenant, runs.id == best)
                .values(merge_group=None, canonical=True, updated_at=now),
                {},
            )
            return best
        await tx.execute(
            update(admission_runs)
            .where(runs.tenant == tenant, runs.id.in_(ids))
            .values(canonical=runs.id == best, updated_at=now),
            {},
        )
        return best

    async def _vectors(self, tx: PointTransaction, tenant: str, ids: list[str]) -> dict[str, Vectors]:
        if not ids:
            return {}
        rows, _ = await tx.execute(select(runs.id, runs.embedding).where(runs.tenant == tenant, runs.id.in_(ids)), {})
        return {str(row[0]): row[1] for row in rows if row[1] is not None}

    async def purge_superseded(self, older_than: timedelta) -> int:
        """Delete runs superseded longer ago than ``older_than`` (retention), with their references
        and artifacts; they are in no index (superseding removed them) and in no active group."""
        cutoff = self._clock.now() - older_than
        old = and_(runs.status == "superseded", runs.superseded_at < cutoff)
        async with self._db.transaction() as conn:
            for table in (admission_run_references, admission_run_artifacts):
                await conn.execute(
                    delete(table).where(
                        select(1).where(runs.tenant == table.c.tenant, runs.id == table.c.run_id, old).exists()
                    )
                )
            result = await conn.execute(delete(admission_runs).where(old))
        return int(result.rowcount or 0)
