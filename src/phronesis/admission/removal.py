"""Taking runs out of memory: deleting one run, and retention for superseded runs.

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

Undoing a decision restores memory exactly as it was before it: each decision keeps what it
changed in other runs as it was (``prior``: a replaced run's status, a group's canonical flag),
and undo deletes the run it added and writes those fields back, or counts a NOT's use one less.
It refuses (409) what later decisions built on: a run they replaced, merged with or counted,
until those are undone first. The undo is a decision of its own (a decision record, path
``undo``), and the undone decision says when and by which.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, literal, select, update

from phronesis.admission.models import OUTCOME_RANK, UndoResult
from phronesis.admission.run_index import IndexChange
from phronesis.admission.run_repository import RunRepository
from phronesis.admission.run_vectors import RunVectors
from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.clock import Clock
from phronesis.embeddings.types import Vectors
from phronesis.exceptions import ConflictError, NotFoundError
from phronesis.ids import new_id
from phronesis.storage.database import Database
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.tables import (
    admission_memory_decisions,
    admission_run_artifacts,
    admission_run_references,
    admission_runs,
)
from phronesis.storage.write_buffer import WriteBuffer

__all__ = ["DeletedRun", "RunRemoval"]


log = logging.getLogger("phronesis.admission")
runs = admission_runs.c


async def _delete_rows(tx: PointTransaction, tenant: str, run_id: str) -> bool:
    """Delete a run with its references and artifacts; False if it was not there."""
    for table in (admission_run_references, admission_run_artifacts):
        await tx.execute(delete(table).where(table.c.tenant == tenant, table.c.run_id == run_id), {})
    _, count = await tx.execute(delete(admission_runs).where(runs.tenant == tenant, runs.id == run_id), {})
    return bool(count)


@dataclass(frozen=True, slots=True)
class DeletedRun:
    run_id: str
    restored: list[str]
    """Runs it had superseded, active again."""
    canonical: str | None
    """Its merge group's canonical run now, if it was in one."""


class RunRemoval:
    def __init__(
        self,
        database: Database,
        runs: RunRepository,
        clock: Clock,
        index: RunVectors,
        decisions: DecisionRecordRepository,
    ) -> None:
        self._db = database
        self._runs = runs
        self._clock = clock
        self._index = index
        self._decisions = decisions

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
            await _delete_rows(tx, tenant, run_id)
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
            changes = await self._announce(tx, WriteBuffer(), tenant, (agent_id, user_id), [run_id], restored, now)
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

    async def _announce(
        self,
        tx: PointTransaction,
        writes: WriteBuffer,
        tenant: str,
        scope: tuple[str, str],
        removed: list[str],
        added: list[str],
        now: datetime,
    ) -> list[IndexChange]:
        """Queue the feed entries for runs taken out of and put back into the index (every other
        process follows them), and return the same changes for this process's index (the vectors
        of the runs put back read from their rows). ``writes`` is flushed here."""
        self._runs.log(writes, tenant, [*(("remove", r) for r in removed), *(("add", r) for r in added)], now)
        await writes.flush(tx)
        vectors: dict[str, Vectors] = {}
        if added:
            rows, _ = await tx.execute(
                select(runs.id, runs.embedding).where(runs.tenant == tenant, runs.id.in_(added)), {}
            )
            vectors = {str(row[0]): row[1] for row in rows if row[1] is not None}
        return [IndexChange("remove", r, *scope) for r in removed] + [
            IndexChange("add", r, *scope, vectors[r]) for r in added if r in vectors
        ]

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

    async def undo(self, tenant: str, decision_id: str) -> UndoResult:
        now = self._clock.now()
        md = admission_memory_decisions.c
        async with self._db.point_transaction() as tx:
            found, _ = await tx.execute(
                select(md.run_id, md.decision, md.agent_id, md.user_id, md.prior, md.undone_at, md.created_at)
                .where(md.tenant == tenant, md.id == decision_id)
                .with_for_update(),
                {},
            )
            if not found:
                raise NotFoundError("memory decision", decision_id)
            run_id, decision, agent_id, user_id, prior, undone_at, created_at = found[0]
            if undone_at is not None:
                raise ConflictError("decision_id", f"decision {decision_id} was undone already")
            if prior is None:
                raise ConflictError(
                    "decision_id",
                    f"decision {decision_id} was recorded before undo existed: delete its run instead",
                )
            created: str | None = prior.get("created")
            before: dict[str, dict[str, Any]] = prior.get("runs") or {}
            counted: str | None = prior.get("counted_use")
            watched = [r for r in (created, *before, counted) if r is not None]
            await self._lock_and_check(tx, tenant, decision_id, decision, created_at, watched, created, list(before))
            restored: list[str] = []
            if created is not None and not await _delete_rows(tx, tenant, created):
                created = None  # deleted since (DELETE /v1/runs): nothing to take out
            for rid, fields in before.items():
                values = dict(fields) | {"updated_at": now}  # JSON as kept: None, a bool, a string
                result = await tx.execute(
                    update(admission_runs).where(runs.tenant == tenant, runs.id == rid).values(**values), {}
                )
                if result[1]:
                    restored.append(rid)
            if counted is not None:
                await tx.execute(
                    update(admission_runs)
                    .where(runs.tenant == tenant, runs.id == counted, runs.duplicate_count > 0)
                    .values(duplicate_count=runs.duplicate_count - 1, updated_at=now),
                    {},
                )
            reactivated = [rid for rid in restored if before[rid].get("status") == "active"]
            undo_id = new_id()
            await tx.execute(
                update(admission_memory_decisions)
                .where(md.tenant == tenant, md.id == decision_id)
                .values(undone_at=now, undone_by=undo_id),
                {},
            )
            writes = WriteBuffer()
            removed = [created] if created else []
            changes = await self._announce(tx, writes, tenant, (agent_id, user_id), removed, reactivated, now)
            await self._decisions.write(
                NewDecisionRecord(
                    id=undo_id,
                    tenant=tenant,
                    kind="admission",
                    subject_id=decision_id,
                    path="undo",
                    action="UNDO",
                    inputs={"decision_id": decision_id, "decision": decision, "run_id": run_id},
                    reason=f"undid {decision} {decision_id}"[:256],
                    llm_calls=0,
                ),
                into=writes,
            )
            await writes.flush(tx)
        self._index.committed(tenant, changes)
        log.info("admission decision %s (%s) undone by %s (tenant %s)", decision_id, decision, undo_id, tenant)
        return UndoResult(
            undo_id=undo_id,
            decision_id=decision_id,
            decision=decision,
            deleted_run_id=created,
            restored=restored,
            uncounted_use=counted,
        )

    async def _lock_and_check(
        self,
        tx: PointTransaction,
        tenant: str,
        decision_id: str,
        decision: str,
        at: datetime,
        watched: list[str],
        created: str | None,
        before: list[str],
    ) -> None:
        """Lock what this undo changes before looking for what forbids it: an admission that would
        build on those runs now waits, then finds them changed and plans again."""
        present, _ = await tx.execute(
            select(runs.id).where(runs.tenant == tenant, runs.id.in_(watched)).order_by(runs.id).with_for_update(),
            {},
        )
        gone = [rid for rid in before if rid not in {row[0] for row in present}]
        if gone:  # undoing a REPLACE whose replaced run was deleted would leave the task with none
            raise ConflictError(
                "decision_id",
                f"run {gone[0]}, which decision {decision_id} changed, was deleted since: memory cannot be put "
                "back as it was (delete the run it added instead)",
            )
        if decision != "NOT":  # a NOT's count is one less whatever came after it
            await self._refuse_later(tx, tenant, decision_id, at, watched, created, before)

    @staticmethod
    async def _refuse_later(
        tx: PointTransaction,
        tenant: str,
        decision_id: str,
        at: datetime,
        watched: list[str],
        created: str | None,
        own: list[str],
    ) -> None:
        """A ConflictError if a decision that still stands, made since, targets a run this undo
        would change, or replaced the run it would delete (``own``: the runs this decision itself
        changed, superseded by it)."""
        md = admission_memory_decisions.c
        if not watched:
            return
        later, _ = await tx.execute(
            select(md.id, md.decision, md.target_run_id)
            .where(
                md.tenant == tenant,
                md.id != decision_id,
                md.undone_at.is_(None),
                md.created_at >= at,
                md.target_run_id.in_(watched),
            )
            .limit(1),
            {},
        )
        if created is not None and not later:
            later, _ = await tx.execute(
                select(runs.id, literal("REPLACE"), runs.superseded_by).where(
                    runs.tenant == tenant, runs.superseded_by == created, runs.id.notin_(own)
                ),
                {},
            )
        if later:
            other, kind, target = later[0]
            raise ConflictError(
                "decision_id",
                f"a later decision ({kind} {other}) builds on run {target}: undo it first",
            )
