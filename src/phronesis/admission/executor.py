"""The write half of an admission: a batch's plans in one transaction, or none of them (the effects
stage ``AdmissionService`` runs through ``phronesis.decision.decide_each``).

Each plan's preconditions are re-checked under the transaction: a REPLACE or MERGE target
must still be active, and the unique content key refuses a second copy of the same run
(two processes admitting it at once). A failed check raises ``StalePlan``; the service
re-plans the batch against fresh state. Seed 003's effects:

- ADD creates the run (task, references and artifacts as related rows);
- NOT stores nothing but the decision (a repeat counts one more use of the stored run, a worse run does not);
- REPLACE creates the run and marks the old one superseded with ``superseded_by`` and a
  timestamp. Never a delete (Mem0 #1674, #4536: LLM-judged deletes lost data);
- MERGE creates the run and keeps both active in one merge group whose canonical run is
  the best outcome, the newer on a tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from phronesis.admission.memory_decisions import MemoryDecisionRepository
from phronesis.admission.models import OUTCOME_RANK, AdmissionResult, Run
from phronesis.admission.planner import Plan, Prepared
from phronesis.admission.run_index import IndexChange
from phronesis.admission.run_repository import RunRepository, run_model
from phronesis.admission.run_vectors import RunVectors
from phronesis.audit.models import NewDecisionRecord
from phronesis.clock import Clock
from phronesis.embeddings.types import Embedder
from phronesis.ids import new_id
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.write_buffer import WriteBuffer

__all__ = ["Applied", "Executor", "StalePlan"]


class StalePlan(Exception):
    """A plan's precondition no longer holds: another writer changed memory since it was planned."""


class _Prior:
    """What an admission changed in runs other than its own, as they were before (each field as
    first seen): what ``POST /v1/memory-decisions/{id}/undo`` restores exactly (``removal``)."""

    def __init__(self) -> None:
        self.runs: dict[str, dict[str, Any]] = {}

    def keep(self, run_id: str, **fields: Any) -> None:
        before = self.runs.setdefault(run_id, {})
        for name, value in fields.items():
            before.setdefault(name, value)

    def record(self, created: str | None, counted_use: str | None) -> dict[str, Any]:
        return {"created": created, "runs": self.runs, "counted_use": counted_use}


@dataclass(frozen=True, slots=True)
class Applied:
    """A batch's effects: what each admission answers, and the index changes to hand over after the commit."""

    results: list[AdmissionResult]
    changes: list[IndexChange]


@dataclass(frozen=True, slots=True)
class _Membership:
    merge_group: str | None
    canonical: bool


class Executor:
    def __init__(
        self,
        runs: RunRepository,
        memory_decisions: MemoryDecisionRepository,
        embedder: Embedder,
        clock: Clock,
        index: RunVectors,
    ) -> None:
        self._index = index
        self._runs = runs
        self._memory_decisions = memory_decisions
        self._embedder = embedder
        self._clock = clock

    async def apply(self, tx: PointTransaction, tenant: str, plans: Sequence[Plan], *, batch_id: str | None) -> Applied:
        """Every plan's effects, in order, in ``tx`` (the records are the caller's to write there too).
        A plan whose precondition no longer holds raises ``StalePlan``: the transaction rolls back."""
        results: list[AdmissionResult] = []
        changes: list[IndexChange] = []
        writes = WriteBuffer()  # the batch's inserts, sent together (see WriteBuffer)
        for plan in plans:
            results.append(await self._apply(tx, writes, tenant, plan, batch_id, changes))
        await writes.flush(tx)
        return Applied(results, changes)

    def committed(self, tenant: str, applied: Applied) -> None:
        """After the commit: the index takes the changes on its own thread (the answer need not wait)."""
        self._index.committed(tenant, applied.changes)

    async def _join_group(
        self, tx: PointTransaction, tenant: str, group: str, joining: Prepared, now: datetime, prior: _Prior
    ) -> bool:
        """Is the joining run the group's canonical one? Success > failure (seed 003), and on a tie
        newer > older, unless the newer says less: fewer references and artifacts, or a summary under
        half as long (a bare re-report of the same task displaced the detailed run it repeats)."""
        current = await self._runs.group_canonical(tx, tenant, group)
        if current is None:
            return True
        outcome = joining.data.outcome
        items = len(joining.data.references) + len(joining.data.artifacts)
        sparser = items < current.items or 2 * len(joining.summary.text) < current.summary_length
        better = OUTCOME_RANK[outcome] > OUTCOME_RANK[current.outcome]
        if better or (OUTCOME_RANK[outcome] == OUTCOME_RANK[current.outcome] and not sparser):
            prior.keep(current.id, canonical=True)
            await self._runs.set_merge_state(tx, tenant, current.id, at=now, group=None, canonical=False)
            return True
        return False

    async def _membership(
        self, tx: PointTransaction, writes: WriteBuffer, tenant: str, plan: Plan, now: datetime, prior: _Prior
    ) -> _Membership:
        verdict, p = plan.verdict, plan.prepared
        if verdict.decision == "ADD":
            return _Membership(None, True)
        assert verdict.target is not None
        await writes.flush(tx)  # the target may be a run this batch has just queued
        target = await self._runs.active_for_update(tx, tenant, verdict.target)
        if target is None:
            raise StalePlan(f"run {verdict.target} is no longer active")
        prior.keep(target.id, merge_group=target.merge_group, canonical=target.canonical)
        if verdict.decision == "REPLACE":
            prior.keep(target.id, status="active", superseded_by=None, superseded_at=None)
            if not await self._runs.supersede(tx, tenant, verdict.target, p.run_id, now):
                raise StalePlan(f"run {verdict.target} was superseded meanwhile")
            if target.merge_group is None:
                return _Membership(None, True)
            # the better version takes the superseded run's place in its merge group
            return _Membership(
                target.merge_group,
                await self._join_group(tx, tenant, target.merge_group, p, now, prior),
            )
        group = target.merge_group or target.id
        if target.merge_group is None:
            await self._runs.set_merge_state(tx, tenant, target.id, at=now, group=group, canonical=True)
        return _Membership(group, await self._join_group(tx, tenant, group, p, now, prior))

    async def _apply(
        self,
        tx: PointTransaction,
        writes: WriteBuffer,
        tenant: str,
        plan: Plan,
        batch_id: str | None,
        changes: list[IndexChange],
    ) -> AdmissionResult:
        p, verdict = plan.prepared, plan.verdict
        now = self._clock.now()
        run: Run | None = None
        prior, counted_use = _Prior(), None
        if verdict.decision == "NOT":
            if plan.counts_as_use and verdict.target is not None:
                await writes.flush(tx)  # the duplicated run may be one this batch has just queued
                await self._runs.count_duplicate(tx, tenant, verdict.target, now)
                counted_use = verdict.target
        else:
            membership = await self._membership(tx, writes, tenant, plan, now, prior)
            values = self._run_values(tenant, plan, membership, now)
            self._runs.insert_run(
                writes, values, task_text=p.data.task, references=p.data.references, artifacts=p.data.artifacts
            )
            ops = [IndexChange("add", p.run_id, p.data.agent_id, p.data.user_id, p.vector)]
            if verdict.decision == "REPLACE" and verdict.target is not None:
                ops.insert(0, IndexChange("remove", verdict.target, p.data.agent_id, p.data.user_id))
            self._runs.log(writes, tenant, [(op.op, op.run_id) for op in ops], now)
            changes.extend(ops)
            run = run_model(values, p.data.references, p.data.artifacts)
        decision_id = new_id()
        similar = [c.brief() for c in plan.nearest]
        similar_rows = [s.model_dump() for s in similar]
        best = plan.similarity
        self._memory_decisions.add(
            writes,
            {
                "tenant": tenant,
                "id": decision_id,
                "run_id": p.run_id,
                "agent_id": p.data.agent_id,
                "user_id": p.data.user_id,
                "decision": verdict.decision,
                "target_run_id": verdict.target,
                "reason": verdict.reason,
                "similarity": best,
                "stage": verdict.stage,
                "rule": verdict.rule,
                "similar_runs": similar_rows,
                "batch_id": batch_id,
                "created_at": now,
                "prior": prior.record(None if run is None else p.run_id, counted_use),
            },
        )
        return AdmissionResult(
            decision_id=decision_id,
            run_id=p.run_id,
            decision=verdict.decision,
            target_run_id=verdict.target,
            reason=verdict.reason,
            similarity=best,
            stage=verdict.stage,
            rule=verdict.rule,
            judge=verdict.judge,
            stored=run is not None,
            summary=p.summary.text,
            summary_source=p.summary.source,
            similar_runs=similar,
            run=run,
            batch_id=batch_id,
        )

    def _run_values(self, tenant: str, plan: Plan, membership: _Membership, now: datetime) -> dict[str, Any]:
        p = plan.prepared
        return {
            "tenant": tenant,
            "id": p.run_id,
            "agent_id": p.data.agent_id,
            "user_id": p.data.user_id,
            "task_id": p.task_id,
            "task": p.data.task,
            "summary": p.summary.text,
            "summary_source": p.summary.source,
            "outcome": p.data.outcome,
            "content_hash": p.content_hash,
            "embedding": p.vector,
            "embedding_model": self._embedder.model_name,
            "status": "active",
            "superseded_by": None,
            "superseded_at": None,
            "merge_group": membership.merge_group,
            "canonical": membership.canonical,
            "usage_count": p.data.usage_count,
            "duplicate_count": 0,
            "attributes": p.data.attributes,
            "created_at": now,
            "updated_at": now,
        }

    @staticmethod
    def record(
        tenant: str, decision_id: str, plan: Plan, batch_id: str | None, *, latency_ms: float | None = None
    ) -> NewDecisionRecord:
        """The admission's decision record: what the judge saw and what a replay of either threshold needs."""
        p, verdict = plan.prepared, plan.verdict
        similar_rows = [c.brief().model_dump() for c in plan.nearest]
        trace = verdict.llm
        return NewDecisionRecord(
            id=decision_id,
            tenant=tenant,
            kind="admission",
            subject_id=p.run_id,
            strategy=verdict.judge,
            path=verdict.stage,
            action=verdict.decision,
            inputs={
                "task": p.data.task[:500],
                "task_id": p.task_id,
                "outcome": p.data.outcome,
                "agent_id": p.data.agent_id,
                "user_id": p.data.user_id,
                "references": len(p.data.references),
                "artifacts": len(p.data.artifacts),
                "summary": p.summary.text[:1000],
                "summary_source": p.summary.source,
            },
            prompt=trace.prompt if trace else None,
            raw_llm_output=trace.raw_output if trace else None,
            model=trace.model if trace else None,
            latency_ms=latency_ms,
            prompt_tokens=trace.prompt_tokens if trace else None,
            completion_tokens=trace.completion_tokens if trace else None,
            # the judge's request, if it was asked, and the summary's (the dashboard's LLM counts)
            llm_calls=int(trace is not None) + p.summary.llm_calls,
            reason=verdict.reason[:256],
            attributes={
                "llm_latency_ms": trace.latency_ms if trace else None,
                "target_run_id": verdict.target,
                "similarity": plan.similarity,
                "rule": verdict.rule,
                "duplicate_threshold": plan.duplicate_threshold,
                # what a replay of the low threshold needs (``replay.admission``): the threshold
                # screened at, the judge a run past it meets, and whether a candidate of the same
                # task (judged whatever its similarity) was among the similar runs
                "low_similarity": plan.low_similarity,
                "judge_configured": plan.judge,
                "pair_judge": plan.pair_judge,
                "same_task_candidates": sum(1 for c in plan.nearest if c.same_task),
                # and of the duplicate threshold: the rule judge's verdict at every value, or the
                # LLM judge's hint and the values that would have given it another
                "by_duplicate_threshold": None
                if plan.by_threshold is None
                else [step.record() for step in plan.by_threshold],
                "likely_duplicate": plan.likely_duplicate,
                "likely_duplicate_from": plan.likely_duplicate_from,
                "similar_runs": similar_rows,
                "fail_safe": plan.fail_safe,
                "summary_note": p.summary.note,
                "batch_id": batch_id,
            },
        )
