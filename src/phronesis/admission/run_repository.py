"""The run knowledge base in the relational store: runs, tasks, references, artifacts, the index log.

Reads open their own connection; writes take the caller's connection (or its ``WriteBuffer``), so that one
admission's run, supersession, merge flags, memory decision and decision record commit
together or not at all.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Integer, and_, bindparam, func, insert, literal, null, select, tuple_, union_all, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.admission.models import GroupView, Run
from phronesis.embeddings.types import Vectors
from phronesis.exceptions import NotFoundError
from phronesis.pages import Page
from phronesis.storage.change_feed import FEED_PAGE, INSERT_CHANGES, ChangeLog, FeedPage, Op, change_rows, feed_page
from phronesis.storage.database import Database
from phronesis.storage.filters import where_given
from phronesis.storage.inserts import insert_or_ignore
from phronesis.storage.paging import fetch_page
from phronesis.storage.pgvector import COLUMN as VECTOR_COLUMN
from phronesis.storage.pgvector import PgVectorColumn, with_vector_column
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.reembedding import store_embeddings
from phronesis.storage.tables import (
    admission_run_artifacts,
    admission_run_references,
    admission_runs,
    admission_tasks,
    index_changes,
)
from phronesis.storage.vector_backend import VectorBackend
from phronesis.storage.write_buffer import WriteBuffer

__all__ = ["IndexedRun", "LogEntry", "RunRepository", "StoredRun", "run_model"]

runs = admission_runs.c
_HIDDEN = ("tenant", "content_hash", "embedding", "embedding_model")
_IN_CHUNK = 500
"""Ids per ``IN (…)`` list: far below SQLite's and asyncpg's parameter limits."""


@dataclass(frozen=True, slots=True)
class StoredRun:
    """What the pre-filter and judges need of a stored run."""

    id: str
    agent_id: str
    user_id: str
    task_id: str
    task: str
    summary: str
    outcome: str
    status: str
    content_hash: str
    references: frozenset[str]
    artifacts: frozenset[str]
    described: bool = True
    """False when references and artifacts were not read (``stored(with_values=…)``): the sets are empty."""


@dataclass(frozen=True, slots=True)
class IndexedRun:
    tenant: str
    id: str
    agent_id: str
    user_id: str
    summary: str
    embedding: Vectors | None
    embedding_model: str


@dataclass(frozen=True, slots=True)
class LogEntry:
    id: int
    tenant: str
    run_id: str
    op: Op
    agent_id: str | None
    user_id: str | None
    embedding: Vectors | None


# The statements an admission runs, built once and executed with parameters: building a
# ``select().where(...)`` per call cost more Python than SQLite spends running it.
_ref, _art, _log = admission_run_references.c, admission_run_artifacts.c, index_changes.c
_VALUES = union_all(
    select(literal("r").label("kind"), _ref.run_id, _ref.value).where(
        _ref.tenant == bindparam("tenant"), _ref.run_id.in_(bindparam("ids", expanding=True))
    ),
    select(literal("a").label("kind"), _art.run_id, _art.value).where(
        _art.tenant == bindparam("tenant"), _art.run_id.in_(bindparam("ids", expanding=True))
    ),
)
# The runs by id and, in the same round trip, the references and artifacts of those of them a
# judge will see ("described"): one row per run (kind "run"), then one per value ("r"/"a").
_STORED = union_all(
    select(
        literal("run").label("kind"),
        runs.id,
        runs.agent_id,
        runs.user_id,
        runs.task_id,
        runs.task,
        runs.summary,
        runs.outcome,
        runs.status,
        runs.content_hash,
    ).where(runs.tenant == bindparam("tenant"), runs.id.in_(bindparam("ids", expanding=True))),
    *(
        select(literal(kind), table.c.run_id, table.c.value, *(null() for _ in range(7))).where(
            table.c.tenant == bindparam("tenant"), table.c.run_id.in_(bindparam("described", expanding=True))
        )
        for kind, table in (("r", admission_run_references), ("a", admission_run_artifacts))
    ),
)
# per scope, so the unique (tenant, agent, user, hash) index is used (a row-value IN is a scan)
_BY_CONTENT = select(runs.content_hash, runs.id, runs.summary).where(
    runs.tenant == bindparam("tenant"),
    runs.agent_id == bindparam("agent_id"),
    runs.user_id == bindparam("user_id"),
    runs.content_hash.in_(bindparam("hashes", expanding=True)),
)
# the scope-and-task index (ix_admission_runs_scope_task); the newest first, a few per task
_SAME_TASK = (
    select(runs.id, runs.task_id, runs.embedding)
    .where(
        runs.tenant == bindparam("tenant"),
        runs.agent_id == bindparam("agent_id"),
        runs.user_id == bindparam("user_id"),
        runs.task_id.in_(bindparam("task_ids", expanding=True)),
        runs.status == "active",
    )
    .order_by(runs.created_at.desc())
    .limit(bindparam("limit", type_=Integer))
)
_LOG_SINCE = (  # every collection's ids (``change_feed.FeedPage``), the runs' with what to index
    select(_log.id, _log.collection, _log.tenant, _log.key, _log.op, runs.agent_id, runs.user_id, runs.embedding)
    .select_from(
        index_changes.outerjoin(
            admission_runs, and_(_log.collection == "runs", runs.tenant == _log.tenant, runs.id == _log.key)
        )
    )
    .where(_log.id > bindparam("after"))
    .order_by(_log.id)
    .limit(bindparam("limit", type_=Integer))
)
_INSERT_RUN = insert(admission_runs)
_INSERT_RUN_WITH_VECTOR = insert(with_vector_column(admission_runs))
_INSERT_REFERENCES = insert(admission_run_references)
_INSERT_ARTIFACTS = insert(admission_run_artifacts)
_ACTIVE_FOR_UPDATE = (
    select(runs.id, runs.merge_group, runs.canonical, runs.outcome, runs.created_at)
    .where(runs.tenant == bindparam("tenant"), runs.id == bindparam("run_id"), runs.status == "active")
    .with_for_update()
)
def _count_of(table: Any) -> Any:
    """How many values of ``table`` (references, artifacts) the selected run has."""
    return (
        select(func.count())
        .select_from(table)
        .where(table.c.tenant == runs.tenant, table.c.run_id == runs.id)
        .scalar_subquery()
    )


_GROUP_CANONICAL = (
    select(
        runs.id,
        runs.outcome,
        runs.created_at,
        _count_of(admission_run_references) + _count_of(admission_run_artifacts),
        func.length(runs.summary),
    )
    .where(
        runs.tenant == bindparam("tenant"),
        runs.merge_group == bindparam("group"),
        runs.canonical,
        runs.status == "active",
    )
    .with_for_update()
)
_SUPERSEDE = (
    update(admission_runs)
    .where(runs.tenant == bindparam("w_tenant"), runs.id == bindparam("w_id"), runs.status == "active")
    .values(
        status="superseded",
        superseded_by=bindparam("by"),
        superseded_at=bindparam("at"),
        canonical=False,
        updated_at=bindparam("at"),
    )
)
_SET_CANONICAL = (
    update(admission_runs)
    .where(runs.tenant == bindparam("w_tenant"), runs.id == bindparam("w_id"))
    .values(canonical=bindparam("canonical"), updated_at=bindparam("at"))
)
_SET_MERGE_STATE = _SET_CANONICAL.values(merge_group=bindparam("group"))
_COUNT_DUPLICATE = (
    update(admission_runs)
    .where(runs.tenant == bindparam("w_tenant"), runs.id == bindparam("w_id"))
    .values(duplicate_count=runs.duplicate_count + 1, updated_at=bindparam("at"))
)


@dataclass(frozen=True, slots=True)
class MergeState:
    """A REPLACE or MERGE target's state, read under the admission's transaction."""

    id: str
    merge_group: str | None
    canonical: bool
    outcome: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class GroupCanonical:
    id: str
    outcome: str
    created_at: datetime
    items: int
    """Its references and artifacts, counted."""
    summary_length: int


def run_model(row: Mapping[Any, Any], references: Sequence[str], artifacts: Sequence[str]) -> Run:
    """A stored row (or the values just inserted) as callers see it: no tenant, hash or embedding."""
    values = {k: v for k, v in row.items() if k not in _HIDDEN}
    return Run.model_validate(values | {"references": list(references), "artifacts": list(artifacts)})


def _chunks(values: Sequence[Any]) -> list[Sequence[Any]]:
    return [values[i : i + _IN_CHUNK] for i in range(0, len(values), _IN_CHUNK)]


class RunRepository:
    def __init__(self, database: Database, *, backend: VectorBackend | None = None) -> None:
        self._db = database
        self._backend = backend or VectorBackend()
        self._insert_task = insert_or_ignore(database.dialect, admission_tasks)
        self.changes = ChangeLog(database, "runs")

    @property
    def vector_column(self) -> PgVectorColumn | None:
        """pgvector's column, where the database has it: a new run's row then carries its vector there too."""
        return self._backend.column("admission_runs")

    @property
    def dialect(self) -> str:
        return self._db.dialect

    def reading(self) -> AbstractAsyncContextManager[AsyncConnection | None]:
        """What an admission's reads share (see ``Database.reading``): pass it as their ``connection``."""
        return self._db.reading()

    # ---- reads -----------------------------------------------------------------------

    async def _values(
        self, conn: AsyncConnection, tenant: str, ids: Sequence[str]
    ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """References and artifacts of these runs in one round trip (a UNION ALL, not two reads)."""
        refs: dict[str, list[str]] = {}
        arts: dict[str, list[str]] = {}
        for chunk in _chunks(ids):
            for kind, run_id, value in await conn.execute(_VALUES, {"tenant": tenant, "ids": list(chunk)}):
                (refs if kind == "r" else arts).setdefault(run_id, []).append(value)
        for values in (*refs.values(), *arts.values()):
            values.sort()  # stored order is insertion order; callers see a stable, sorted list
        return refs, arts

    async def stored(
        self,
        tenant: str,
        ids: Sequence[str],
        *,
        with_values: Sequence[str] | None = None,
        connection: AsyncConnection | None = None,
    ) -> dict[str, StoredRun]:
        """The runs with these ids (any status); references and artifacts for ``with_values`` only
        (None: all), because only the runs a judge will see need them."""
        if not ids:
            return {}
        ids = list(dict.fromkeys(ids))
        wanted = None if with_values is None else set(with_values)
        rows: builtins.list[Any] = []
        refs: dict[str, set[str]] = {}
        arts: dict[str, set[str]] = {}
        for chunk in _chunks(ids):
            described = list(chunk) if wanted is None else [i for i in chunk if i in wanted]
            parameters = {"tenant": tenant, "ids": list(chunk), "described": described}
            for row in await self._db.read(_STORED, parameters, connection=connection):
                if row[0] == "run":
                    rows.append(row)
                else:  # a value row: (kind, run id, value, …)
                    (refs if row[0] == "r" else arts).setdefault(row[1], set()).add(row[2])
        return {
            run_id: StoredRun(
                id=run_id,
                agent_id=agent_id,
                user_id=user_id,
                task_id=task_id,
                task=task,
                summary=summary,
                outcome=outcome,
                status=status,
                content_hash=digest,
                references=frozenset(refs.get(run_id, ())),
                artifacts=frozenset(arts.get(run_id, ())),
                described=wanted is None or run_id in wanted,
            )
            for _, run_id, agent_id, user_id, task_id, task, summary, outcome, status, digest in rows
        }

    async def embeddings(self, tenant: str, ids: Sequence[str]) -> dict[str, Vectors]:
        """The stored vectors of these runs (any status)."""
        out: dict[str, Vectors] = {}
        for chunk in _chunks(builtins.list(dict.fromkeys(ids))):
            query = select(runs.id, runs.embedding).where(runs.tenant == tenant, runs.id.in_(chunk))
            for run_id, vector in await self._db.read(query, {}):
                if vector is not None:
                    out[run_id] = vector
        return out

    async def same_task(
        self,
        tenant: str,
        scope: tuple[str, str],
        task_ids: Sequence[str],
        *,
        limit: int,
        connection: AsyncConnection | None = None,
    ) -> builtins.list[tuple[str, str, Vectors]]:
        """(run id, task id, embedding) of the scope's active runs of these tasks, newest first,
        at most ``limit``: the same task's runs are judged even when other tasks' runs are nearer."""
        if not task_ids:
            return []
        agent_id, user_id = scope
        out: builtins.list[tuple[str, str, Vectors]] = []
        for chunk in _chunks(list(dict.fromkeys(task_ids))):
            parameters = {"tenant": tenant, "agent_id": agent_id, "user_id": user_id, "task_ids": list(chunk)}
            rows = await self._db.read(_SAME_TASK, parameters | {"limit": limit}, connection=connection)
            out.extend((run_id, task_id, vector) for run_id, task_id, vector in rows if vector is not None)
        return out

    async def by_content(
        self,
        tenant: str,
        keys: Sequence[tuple[str, str, str]],
        *,
        connection: AsyncConnection | None = None,
    ) -> dict[tuple[str, str, str], tuple[str, str]]:
        """(run id, summary) by (agent_id, user_id, content_hash): the exact-duplicate lookup, any status."""
        if not keys:
            return {}
        out: dict[tuple[str, str, str], tuple[str, str]] = {}
        by_scope: dict[tuple[str, str], list[str]] = {}
        for agent, user, digest in dict.fromkeys(keys):
            by_scope.setdefault((agent, user), []).append(digest)
        for (agent, user), digests in by_scope.items():
            for chunk in _chunks(digests):
                parameters = {"tenant": tenant, "agent_id": agent, "user_id": user, "hashes": list(chunk)}
                for digest, run_id, summary in await self._db.read(_BY_CONTENT, parameters, connection=connection):
                    out[(agent, user, digest)] = (run_id, summary)
        return out

    async def get_many(self, tenant: str, ids: Sequence[str]) -> dict[str, Run]:
        if not ids:
            return {}
        ids = list(dict.fromkeys(ids))
        async with self._db.connect() as conn:
            rows: builtins.list[Any] = []
            for chunk in _chunks(ids):
                rows += (
                    await conn.execute(select(admission_runs).where(runs.tenant == tenant, runs.id.in_(chunk)))
                ).all()
            found = [r.id for r in rows]
            refs, arts = await self._values(conn, tenant, found)
        return {r.id: run_model(r._mapping, refs.get(r.id, []), arts.get(r.id, [])) for r in rows}

    async def get(self, tenant: str, run_id: str) -> Run:
        found = await self.get_many(tenant, [run_id])
        if run_id not in found:
            raise NotFoundError("run", run_id)
        return found[run_id]

    async def list(
        self,
        tenant: str,
        *,
        agent_id: str | None = None,
        user_id: str | None = None,
        status: str | None = None,
        task_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> Page[Run]:
        query = where_given(
            select(runs.id).where(runs.tenant == tenant),
            ((runs.agent_id, agent_id), (runs.user_id, user_id), (runs.status, status), (runs.task_id, task_id)),
        )
        async with self._db.connect() as conn:
            ids = await fetch_page(conn, query.order_by(runs.created_at, runs.id), _first, limit=limit, offset=offset)
        found = await self.get_many(tenant, ids.items)
        return Page[Run].model_construct(
            items=[found[i] for i in ids.items if i in found], limit=limit, offset=offset, total=ids.total
        )

    async def iterate(self, tenant: str, *, batch_size: int = 2000) -> AsyncIterator[builtins.list[Run]]:
        """Every run of ``tenant`` (any status) in id order, a page at a time (keyset: no OFFSET scans)."""
        after = ""
        while True:
            async with self._db.connect() as conn:
                ids = builtins.list(
                    (
                        await conn.execute(
                            select(runs.id)
                            .where(runs.tenant == tenant, runs.id > after)
                            .order_by(runs.id)
                            .limit(batch_size)
                        )
                    ).scalars()
                )
            if not ids:
                return
            found = await self.get_many(tenant, ids)
            yield [found[i] for i in ids if i in found]
            after = ids[-1]

    async def groups(self, tenant: str, group_ids: Sequence[str]) -> dict[str, GroupView]:
        """Merge groups with their aggregates, computed from the members (so they never drift):
        summed usage counters and the union of the active members' references."""
        if not group_ids:
            return {}
        out: dict[str, GroupView] = {}
        async with self._db.connect() as conn:
            for chunk in _chunks(builtins.list(dict.fromkeys(group_ids))):
                members = (
                    await conn.execute(
                        select(runs.merge_group, runs.id, runs.canonical, runs.usage_count, runs.duplicate_count).where(
                            runs.tenant == tenant, runs.merge_group.in_(chunk), runs.status == "active"
                        )
                    )
                ).all()
                refs, _ = await self._values(conn, tenant, [m.id for m in members])
                for group in chunk:
                    mine = [m for m in members if m.merge_group == group]
                    if not mine:
                        continue
                    union = sorted({value for m in mine for value in refs.get(m.id, [])})
                    out[group] = GroupView(
                        id=group,
                        canonical_run_id=next((m.id for m in mine if m.canonical), None),
                        size=len(mine),
                        usage_count=sum(m.usage_count + m.duplicate_count for m in mine),
                        references=union,
                    )
        return out

    async def iter_active(self, batch_size: int = 5000) -> AsyncIterator[builtins.list[IndexedRun]]:
        """Every active run with its embedding, in key order (keyset pagination, constant memory)."""
        after: tuple[str, str] = ("", "")
        columns = (
            runs.tenant,
            runs.id,
            runs.agent_id,
            runs.user_id,
            runs.summary,
            runs.embedding,
            runs.embedding_model,
        )
        while True:
            async with self._db.connect() as conn:
                rows = (
                    await conn.execute(
                        select(*columns)
                        .where(runs.status == "active", tuple_(runs.tenant, runs.id) > after)
                        .order_by(runs.tenant, runs.id)
                        .limit(batch_size)
                    )
                ).all()
            if not rows:
                return
            yield [IndexedRun(*row) for row in rows]
            after = (rows[-1].tenant, rows[-1].id)

    async def count_active(self) -> int:
        """How many runs the index should hold."""
        async with self._db.connect() as conn:
            query = select(func.count()).select_from(admission_runs).where(runs.status == "active")
            return int((await conn.execute(query)).scalar_one())

    async def log_since(
        self, after: int, *, limit: int = FEED_PAGE, connection: AsyncConnection | None = None
    ) -> FeedPage[LogEntry]:
        """The feed after ``after``: the runs' entries with their rows' vectors, the other collections' ids."""
        rows = await self._db.read(_LOG_SINCE, {"after": after, "limit": limit}, connection=connection)
        return feed_page(rows, "runs", limit, LogEntry)

    async def set_embeddings(self, items: Sequence[tuple[str, str, Vectors]], model: str) -> None:
        """Store runs' vectors computed again (no feed entry: a run's vector is indexed once, by its own entry)."""
        async with self._db.transaction() as conn:
            await store_embeddings(
                conn, admission_runs, items, model, at=datetime.now(UTC), changes=None, vector_column=self.vector_column
            )

    # ---- writes (in the caller's transaction) ------------------------------------------

    def insert_run(
        self,
        writes: WriteBuffer,
        values: dict[str, Any],
        *,
        task_text: str,
        references: Sequence[str],
        artifacts: Sequence[str],
    ) -> None:
        """Queue the run with its task, references and artifacts (sent with the transaction's other rows)."""
        tenant, run_id = values["tenant"], values["id"]
        writes.insert(
            self._insert_task,
            {"tenant": tenant, "id": values["task_id"], "text": task_text, "created_at": values["created_at"]},
        )
        if self.vector_column is None:
            writes.insert(_INSERT_RUN, values)
        else:
            writes.insert(_INSERT_RUN_WITH_VECTOR, values | {VECTOR_COLUMN: values["embedding"]})
        for statement, items in ((_INSERT_REFERENCES, references), (_INSERT_ARTIFACTS, artifacts)):
            writes.insert(statement, *({"tenant": tenant, "run_id": run_id, "value": v} for v in items))

    async def active_for_update(self, tx: PointTransaction, tenant: str, run_id: str) -> MergeState | None:
        """The run's merge state, locked until commit on PostgreSQL (SQLite's writer lock covers it)."""
        rows, _ = await tx.execute(_ACTIVE_FOR_UPDATE, {"tenant": tenant, "run_id": run_id})
        return MergeState(*rows[0]) if rows else None

    async def supersede(self, tx: PointTransaction, tenant: str, run_id: str, by: str, at: datetime) -> bool:
        """Soft supersession, never a delete; False if the run is no longer active (a concurrent REPLACE)."""
        _, count = await tx.execute(_SUPERSEDE, {"w_tenant": tenant, "w_id": run_id, "by": by, "at": at})
        return bool(count)

    async def group_canonical(self, tx: PointTransaction, tenant: str, group: str) -> GroupCanonical | None:
        rows, _ = await tx.execute(_GROUP_CANONICAL, {"tenant": tenant, "group": group})
        return GroupCanonical(*rows[0]) if rows else None

    async def set_merge_state(
        self, tx: PointTransaction, tenant: str, run_id: str, *, at: datetime, group: str | None, canonical: bool
    ) -> None:
        """Put the run in ``group`` (None: leave it where it is) as its canonical member or not."""
        statement, parameters = _SET_CANONICAL, {"w_tenant": tenant, "w_id": run_id, "at": at, "canonical": canonical}
        if group is not None:
            statement, parameters = _SET_MERGE_STATE, parameters | {"group": group}
        await tx.execute(statement, parameters)

    async def count_duplicate(self, tx: PointTransaction, tenant: str, run_id: str, at: datetime) -> None:
        """A NOT for a duplicate still counts as one more use of the stored run (in SQL, never read-modify-write)."""
        await tx.execute(_COUNT_DUPLICATE, {"w_tenant": tenant, "w_id": run_id, "at": at})

    def log(self, writes: WriteBuffer, tenant: str, ops: Sequence[tuple[Op, str]], at: datetime) -> None:
        """Queue change-feed entries (``storage.change_feed``); their ids, and so the order every
        index applies them in, follow ``ops``."""
        writes.insert(INSERT_CHANGES, *change_rows("runs", tenant, ops, at))


def _first(row: Any) -> str:
    return str(row[0])
