"""Heuristics in the relational store: the store of record for heuristic memory.

Counters are updated atomically in SQL (``fire_count = fire_count + 1``); confidence
changes only through ``evidence_writer`` under a row lock, so concurrent feedback from
several workers adds up.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal, overload

from sqlalchemy import Connection, Row, Select, bindparam, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.clock import Clock, SystemClock
from phronesis.embeddings.types import Vectors
from phronesis.exceptions import ConflictError, InvalidInputError, NotFoundError
from phronesis.heuristics.channel import Channel, read_counts
from phronesis.heuristics.confidence import BetaConfidence, BetaEvidence, EvidenceModel, bounded
from phronesis.heuristics.evidence_writer import EvidenceItem, EvidencePolicy, Retraction, apply_evidence
from phronesis.heuristics.group_commit import EvidenceGroupCommit
from phronesis.heuristics.models import (
    ConfidenceUpdate,
    Heuristic,
    HeuristicCreate,
    HeuristicUpdate,
    Origin,
)
from phronesis.ids import new_id
from phronesis.pages import Page
from phronesis.storage.change_feed import ChangeLog
from phronesis.storage.database import Database
from phronesis.storage.followed_index import IndexedRow
from phronesis.storage.index_rows import rows_by_key, rows_in_key_order
from phronesis.storage.paging import fetch_page
from phronesis.storage.pgvector import PgVectorColumn
from phronesis.storage.point_transaction import PointTransaction
from phronesis.storage.reembedding import store_embeddings_now
from phronesis.storage.tables import confidence_events, heuristics
from phronesis.storage.vector_backend import VectorBackend

__all__ = ["HeuristicRepository"]

_COLUMNS = [c for c in heuristics.c if c.name != "embedding"]
_NAMES = tuple(c.name for c in _COLUMNS)
_ID = _NAMES.index("id")
MAX_MAGNITUDE = 10.0  # a magnitude outside [0, 10] is refused

# Statements on every decision's path are built once: constructing a SQLAlchemy statement
# costs more Python than executing its cached compiled form (the executive's profile).
_GET_MANY = select(*_COLUMNS).where(
    heuristics.c.tenant == bindparam("w_tenant"), heuristics.c.id.in_(bindparam("w_ids", expanding=True))
)
_RECORD_FIRE = (
    update(heuristics)
    .where(heuristics.c.tenant == bindparam("w_tenant"), heuristics.c.id == bindparam("w_id"))
    .values(fire_count=heuristics.c.fire_count + 1, last_fired_at=bindparam("fired_at"))
)


_e = confidence_events.c
_LAST_EVIDENCE_COLUMNS = ("source", "positive", "old_confidence", "new_confidence", "created_at", "signal_key")
_LAST_EVIDENCE = (
    select(_e.source, _e.positive, _e.old_confidence, _e.new_confidence, _e.created_at, _e.signal_key)
    .where(_e.tenant == bindparam("w_tenant"), _e.heuristic_id == bindparam("w_id"))
    .order_by(_e.id.desc())
    .limit(1)
)

_INDEXED = select(
    heuristics.c.tenant,
    heuristics.c.id,
    heuristics.c.domain,
    heuristics.c.condition_text,
    heuristics.c.embedding,
    heuristics.c.embedding_model,
)


def _indexed(row: Row[Any, Any, Any, Any, Any, Any]) -> IndexedRow:
    return IndexedRow(row.tenant, row.id, row.domain, row.condition_text, row.embedding, row.embedding_model)


def _to_model(row: Row[Any]) -> Heuristic:
    return Heuristic.model_validate(dict(row._mapping))


def validate_magnitude(magnitude: float | None) -> float:
    """An unset magnitude (None) means 1.0, as in seed 001. GLADyS's proto also read 0 as "unset";
    here 0 is refused, never taken for 1.0 (so taken, an endorsement weight of 0 would double the boost)."""
    if magnitude is None:
        return 1.0
    if not math.isfinite(magnitude) or magnitude <= 0 or magnitude > MAX_MAGNITUDE:
        raise InvalidInputError("magnitude", f"must be a finite number in (0, {MAX_MAGNITUDE:g}]; omit it for 1.0")
    return magnitude


_KEPT_ON_REPLACE = frozenset(
    {"tenant", "id", "created_at", "fire_count", "success_count", "failure_count", "last_fired_at"}
)
"""What an upserted heuristic keeps of the one it replaces: its identity and its history."""
_EVIDENCE = frozenset({"alpha", "beta", "prior_alpha", "prior_beta", "confidence"})
"""What it also keeps when the import gives the confidence it has (an export imported back)."""


class HeuristicRepository:
    def __init__(
        self,
        database: Database,
        *,
        prior_strength: float = 2.0,
        default_confidence: float = 0.5,
        clock: Clock | None = None,
        evidence_model: EvidenceModel | None = None,
        evidence_policy: EvidencePolicy | None = None,
        channel_prior: Channel | None = None,
        backend: VectorBackend | None = None,
    ) -> None:
        self._db = database
        self._backend = backend or VectorBackend()
        self.evidence_model: EvidenceModel = evidence_model or BetaEvidence()
        """Set by the engine from the learning strategy (seed 001: the strategy picks, memory computes)."""
        self.evidence_policy = evidence_policy or EvidencePolicy()
        self.channel_prior = channel_prior
        """Set by the engine when the learning strategy weighs implicit outcomes through the channel:
        the prior, to which each batch adds the tenant's learned counts (``heuristics.channel``)."""
        self._group_commit = EvidenceGroupCommit(database, self._apply_sync)
        self._prior_strength = prior_strength
        self._default_confidence = default_confidence
        self._clock = clock or SystemClock()
        self.changes = ChangeLog(database, "heuristics")
        """Every write that changes what matching searches (a condition's vector, a domain, a row
        added or deleted) is recorded here in its transaction, so every process's index follows."""

    @property
    def vector_column(self) -> PgVectorColumn | None:
        """pgvector's column, where the database has it: every write of an embedding fills it too."""
        return self._backend.column("heuristics")

    @property
    def database(self) -> Database:
        """Where heuristics are stored: a caller may hold a transaction that joins theirs and its own
        writes (``HeuristicMemory``: a heuristic and its examples together)."""
        return self._db

    def _row_values(
        self, tenant: str, data: HeuristicCreate, embedding: Vectors | None, embedding_model: str | None
    ) -> dict[str, Any]:
        confidence = data.confidence if data.confidence is not None else self._default_confidence
        prior = BetaConfidence.from_prior(confidence, self._prior_strength)
        now = self._clock.now()
        return {
            "tenant": tenant,
            "id": data.id or new_id(),
            "domain": data.domain,
            "name": data.name,
            "condition_text": data.condition_text,
            "action_text": data.action_text,
            "embedding": embedding,
            "embedding_model": embedding_model,
            "alpha": prior.alpha,
            "beta": prior.beta,
            "prior_alpha": prior.alpha,
            "prior_beta": prior.beta,
            "confidence": bounded(prior.mean, data.floor, data.ceiling),
            "origin": data.origin,
            "origin_id": data.origin_id,
            "locked": data.locked,
            "floor": data.floor,
            "ceiling": data.ceiling,
            "feedback_weight": data.feedback_weight,
            "fire_count": 0,
            "success_count": 0,
            "failure_count": 0,
            "last_fired_at": None,
            "created_at": now,
            "updated_at": now,
            "attributes": data.attributes,
        }

    async def create_many(
        self,
        tenant: str,
        items: Sequence[HeuristicCreate],
        embeddings: Vectors | None,
        embedding_model: str | None,
        *,
        connection: AsyncConnection | None = None,
        upsert: bool = False,
    ) -> list[Heuristic]:
        """Insert all of ``items`` in one transaction (the caller's, if given), or none of them.
        An id that exists is a conflict; with ``upsert`` it is replaced instead (an export imported
        back into its tenant): its text, domain, origin, bounds and attributes; a confidence other
        than its own as a new prior, while the confidence it has keeps the evidence behind it (else
        an unchanged round trip would cut the evidence from 6.6 to the prior's 2); what it did
        (fires, successes, failures) and when it was made stay."""
        rows = [
            self._row_values(tenant, item, None if embeddings is None else embeddings[i], embedding_model)
            for i, item in enumerate(items)
        ]
        ids = [row["id"] for row in rows]
        if len(set(ids)) != len(ids):
            raise ConflictError("id", "the same id appears twice in one request")
        async with self._db.joined(connection) as conn:
            found = await conn.execute(
                select(heuristics.c.id, heuristics.c.confidence).where(
                    heuristics.c.tenant == tenant, heuristics.c.id.in_(ids)
                )
            )
            confidences = {row.id: row.confidence for row in found}
            existing = set(confidences)
            if existing and not upsert:
                taken = [i for i in ids if i in existing]
                more = f" and {len(taken) - 1} more" if len(taken) > 1 else ""
                raise ConflictError(
                    "id",
                    f"heuristic {taken[0]!r}{more} already exist(s): import with --upsert (API: ?upsert=true) "
                    "to replace them",
                )
            fresh = [row for row in rows if row["id"] not in existing]
            for start in range(0, len(fresh), 500):
                await conn.execute(insert(heuristics), fresh[start : start + 500])
            for item, row in zip(items, rows, strict=True):
                if row["id"] in existing:
                    kept = _KEPT_ON_REPLACE
                    if item.confidence is None or abs(item.confidence - confidences[row["id"]]) < 1e-9:
                        kept = kept | _EVIDENCE  # its own confidence: the evidence behind it stands
                    replaced = {k: v for k, v in row.items() if k not in kept}
                    await conn.execute(
                        update(heuristics)
                        .where(heuristics.c.tenant == tenant, heuristics.c.id == row["id"])
                        .values(**replaced)
                    )
            await self.changes.append(conn, tenant, (("add", row["id"]) for row in rows), rows[0]["updated_at"])
            if self.vector_column is not None:
                embedded = [(row["id"], row["embedding"]) for row in rows if row["embedding"] is not None]
                await self.vector_column.write(conn, tenant, embedded)
            if existing:  # what the replaced rows kept is in the table, not in ``rows``
                stored = await conn.execute(
                    select(*_COLUMNS).where(heuristics.c.tenant == tenant, heuristics.c.id.in_(ids))
                )
                by_id = {row.id: _to_model(row) for row in stored}
                return [by_id[i] for i in ids]
        for row in rows:
            row.pop("embedding")
        return [Heuristic.model_validate(row) for row in rows]

    async def get(self, tenant: str, heuristic_id: str) -> Heuristic:
        async with self._db.connect() as conn:
            row = (
                await conn.execute(
                    select(*_COLUMNS).where(heuristics.c.tenant == tenant, heuristics.c.id == heuristic_id)
                )
            ).one_or_none()
        if row is None:
            raise NotFoundError("heuristic", heuristic_id)
        return _to_model(row)

    async def get_many(self, tenant: str, ids: Sequence[str]) -> dict[str, Heuristic]:
        if not ids:
            return {}
        # on every decision's path: one hop to the reader lane on a SQLite file (a pooled aiosqlite
        # connection crosses to its thread four times per statement: the executive's profile)
        rows = await self._db.read(_GET_MANY, {"w_tenant": tenant, "w_ids": list(ids)})
        return {row[_ID]: Heuristic.model_validate(dict(zip(_NAMES, row, strict=True))) for row in rows}

    async def list(
        self,
        tenant: str,
        *,
        domain: str | None = None,
        origin: Origin | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> Page[Heuristic]:
        query = select(*_COLUMNS).where(heuristics.c.tenant == tenant)
        if domain is not None:
            query = query.where(heuristics.c.domain == domain)
        if origin is not None:
            query = query.where(heuristics.c.origin == origin)
        query = query.order_by(heuristics.c.created_at, heuristics.c.id)
        async with self._db.connect() as conn:
            return await fetch_page(conn, query, _to_model, limit=limit, offset=offset)

    async def with_condition(
        self, tenant: str, domain: str, condition_text: str, *, limit: int = 5
    ) -> builtins.list[Heuristic]:
        """Heuristics of ``domain`` whose condition is ``condition_text`` (case and outer spaces aside):
        what a new one would duplicate."""
        said = " ".join(condition_text.split()).lower()
        query = (
            select(*_COLUMNS)
            .where(
                heuristics.c.tenant == tenant,
                heuristics.c.domain == domain,
                func.lower(func.trim(heuristics.c.condition_text)) == said,
            )
            .order_by(heuristics.c.created_at, heuristics.c.id)
            .limit(limit)
        )
        async with self._db.connect() as conn:
            return [_to_model(row) for row in await conn.execute(query)]

    async def count(self, tenant: str | None = None) -> int:
        query = select(func.count()).select_from(heuristics)
        if tenant is not None:
            query = query.where(heuristics.c.tenant == tenant)
        async with self._db.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def update(
        self,
        tenant: str,
        heuristic_id: str,
        patch: HeuristicUpdate,
        *,
        embedding: Vectors | None = None,
        embedding_model: str | None = None,
        connection: AsyncConnection | None = None,
    ) -> tuple[Heuristic, Heuristic]:
        """Apply ``patch``; returns (before, after). Re-seeds the prior if ``confidence`` is given."""
        # An explicit null means "leave as is", except for ``name``, which may be cleared.
        changes = {k: v for k, v in patch.model_dump(exclude_unset=True).items() if v is not None or k == "name"}
        async with self._db.joined(connection) as conn:
            before_row = (
                await conn.execute(
                    select(*_COLUMNS).where(heuristics.c.tenant == tenant, heuristics.c.id == heuristic_id)
                )
            ).one_or_none()
            if before_row is None:
                raise NotFoundError("heuristic", heuristic_id)
            before = _to_model(before_row)
            floor = changes.get("floor", before.floor)
            ceiling = changes.get("ceiling", before.ceiling)
            if floor > ceiling:
                raise InvalidInputError("floor", "floor must not exceed ceiling")
            values: dict[str, Any] = {k: v for k, v in changes.items() if k != "confidence"}
            if "confidence" in changes:
                prior = BetaConfidence.from_prior(changes["confidence"], self._prior_strength)
                # a confidence set by hand is a new prior: past evidence no longer applies
                values.update(
                    alpha=prior.alpha, beta=prior.beta, prior_alpha=prior.alpha, prior_beta=prior.beta, evidence_at=None
                )
            alpha = values.get("alpha", before.alpha)
            beta = values.get("beta", before.beta)
            values["confidence"] = bounded(alpha / (alpha + beta), floor, ceiling)
            if embedding is not None:
                values.update(embedding=embedding, embedding_model=embedding_model)
            values["updated_at"] = self._clock.now()
            result = await conn.execute(
                update(heuristics)
                .where(heuristics.c.tenant == tenant, heuristics.c.id == heuristic_id)
                .values(**values)
                .returning(*_COLUMNS)
            )
            after = _to_model(result.one())
            if embedding is not None or after.domain != before.domain:
                await self.changes.append(conn, tenant, [("add", heuristic_id)], values["updated_at"])
            if embedding is not None and self.vector_column is not None:
                await self.vector_column.write(conn, tenant, [(heuristic_id, embedding)])
            return before, after

    async def delete(self, tenant: str, heuristic_id: str, *, connection: AsyncConnection | None = None) -> Heuristic:
        async with self._db.joined(connection) as conn:
            row = (
                await conn.execute(
                    heuristics.delete()
                    .where(heuristics.c.tenant == tenant, heuristics.c.id == heuristic_id)
                    .returning(*_COLUMNS)
                )
            ).one_or_none()
            if row is None:
                raise NotFoundError("heuristic", heuristic_id)
            await self.changes.append(conn, tenant, [("remove", heuristic_id)], self._clock.now())
        return _to_model(row)

    @overload
    async def update_confidence(
        self,
        tenant: str,
        heuristic_id: str,
        *,
        positive: bool,
        magnitude: float | None = 1.0,
        source: str,
        connection: AsyncConnection | None = None,
        missing_ok: Literal[False] = False,
    ) -> ConfidenceUpdate: ...

    @overload
    async def update_confidence(
        self,
        tenant: str,
        heuristic_id: str,
        *,
        positive: bool,
        magnitude: float | None = 1.0,
        source: str,
        connection: AsyncConnection | None = None,
        missing_ok: bool,
    ) -> ConfidenceUpdate | None: ...

    async def update_confidence(
        self,
        tenant: str,
        heuristic_id: str,
        *,
        positive: bool,
        magnitude: float | None = 1.0,
        source: str,
        connection: AsyncConnection | None = None,
        missing_ok: bool = False,
    ) -> ConfidenceUpdate | None:
        """Add one piece of evidence; returns (old, new, delta). A locked heuristic is left as is.

        Pass ``connection`` to make the update part of a caller's transaction (a decision
        and its effects commit together). ``missing_ok``: a heuristic deleted meanwhile
        returns None instead of raising (background effects must not fail on it).
        """
        item = EvidenceItem(heuristic_id, positive, validate_magnitude(magnitude), source)
        (update,) = await self.apply_evidence(tenant, [item], connection=connection, missing_ok=missing_ok)
        return update

    async def apply_evidence(
        self,
        tenant: str,
        items: Sequence[EvidenceItem],
        *,
        connection: AsyncConnection | None = None,
        missing_ok: bool = False,
    ) -> builtins.list[ConfidenceUpdate | None]:
        """A batch of evidence (see ``evidence_writer``), with this memory's model and policy.

        In the caller's transaction when ``connection`` is given; otherwise it joins the next
        group commit with every other caller waiting at that moment.
        """
        if connection is None:
            return await self._group_commit.submit(tenant, items, missing_ok=missing_ok)
        return await self._apply_in(connection, tenant, items, missing_ok)

    async def _apply_in(
        self, conn: AsyncConnection, tenant: str, items: Sequence[EvidenceItem], missing_ok: bool
    ) -> builtins.list[ConfidenceUpdate | None]:
        return await conn.run_sync(self._apply_sync, tenant, items, missing_ok)

    def _apply_sync(
        self, conn: Connection, tenant: str, items: Sequence[EvidenceItem], missing_ok: bool
    ) -> builtins.list[ConfidenceUpdate | None]:
        channel = None
        if self.channel_prior is not None and any(item.outcome is not None for item in items):
            channel = self.channel_prior.plus(read_counts(conn, tenant))
        return apply_evidence(
            conn,
            tenant,
            items,
            model=self.evidence_model,
            policy=self.evidence_policy,
            now=self._clock.now(),
            missing_ok=missing_ok,
            channel=channel,
        )

    async def record_fire(
        self,
        tenant: str,
        heuristic_id: str,
        *,
        transaction: PointTransaction | None = None,
        missing_ok: bool = False,
    ) -> bool:
        """Count a fire (GLADyS bug 7: its ``fire_count`` was never incremented in production).

        ``transaction``: the decision's own (a point statement, so it rides the decision's point
        transaction), else one of its own. Returns False when the heuristic is gone and
        ``missing_ok`` (deleted after it matched).
        """
        parameters = {"w_tenant": tenant, "w_id": heuristic_id, "fired_at": self._clock.now()}
        async with self._db.point_joined(transaction) as tx:
            _, count = await tx.execute(_RECORD_FIRE, parameters)
        if count == 0:
            if missing_ok:
                return False
            raise NotFoundError("heuristic", heuristic_id)
        return True

    async def record_outcome(
        self,
        tenant: str,
        heuristic_id: str,
        *,
        success: bool | None,
        replaces: bool | None = None,
        connection: AsyncConnection | None = None,
    ) -> None:
        """Count an outcome-confirmed success or failure, kept apart from confidence (F-25 §success rate).

        One rule on every path: a rated fire counts once, as its standing rating says.
        ``replaces``: the rating this one replaces on the same fire (last click wins), taken back
        from its counter."""
        h = heuristics.c
        changes: dict[str, Any] = {}
        if replaces is not success:
            if success is not None:  # None: a neutral rating, which counts as neither
                counter = h.success_count if success else h.failure_count
                changes[counter.name] = counter + 1
            if replaces is not None:
                previous = h.success_count if replaces else h.failure_count
                changes[previous.name] = previous - 1
        if not changes:
            return
        statement = update(heuristics).where(h.tenant == tenant, h.id == heuristic_id).values(changes)
        async with self._db.joined(connection) as conn:
            result = await conn.execute(statement)
        if result.rowcount == 0:
            raise NotFoundError("heuristic", heuristic_id)

    async def lock(self, tenant: str, heuristic_ids: Sequence[str], *, connection: AsyncConnection) -> None:
        """Take the rows' write locks now, in id order (the order ``evidence_writer`` takes them in):
        what a caller reads next about them (a fire's standing rating) cannot change until it commits.
        On SQLite the writer's transaction holds the whole database already."""
        ids = sorted(set(heuristic_ids))
        if ids:
            h = heuristics.c
            await connection.execute(
                select(h.id).where(h.tenant == tenant, h.id.in_(ids)).order_by(h.id).with_for_update()
            )

    async def evidence_for_key(self, tenant: str, key: str, *, connection: AsyncConnection) -> Retraction | None:
        """The evidence a signal with this key added, as what would take it back; None if none was."""
        e = confidence_events.c
        row = (
            await connection.execute(
                select(e.positive, e.weight, e.created_at, e.details).where(e.tenant == tenant, e.signal_key == key)
            )
        ).one_or_none()
        if row is None or row.weight is None:
            return None
        share = (row.details or {}).get("helped_share")
        return Retraction(
            bool(row.positive), float(row.weight), row.created_at, None if share is None else float(share)
        )

    async def last_evidence(self, tenant: str, heuristic_id: str) -> dict[str, Any] | None:
        """The heuristic's latest confidence step (a point read: the recovery rule asks it only of a
        best candidate below the threshold)."""
        rows = await self._db.read(_LAST_EVIDENCE, {"w_tenant": tenant, "w_id": heuristic_id})
        if not rows:
            return None
        return dict(zip(_LAST_EVIDENCE_COLUMNS, rows[0], strict=True))

    async def delete_untried(self, tenant: str, heuristic_id: str, *, connection: AsyncConnection) -> bool:
        """Delete a heuristic that has never fired nor been rated (a lesson taken back before it was
        used: ``ExecutiveFeedback``); False if it has, or is gone."""
        h = heuristics.c
        result = await connection.execute(
            heuristics.delete().where(h.tenant == tenant, h.id == heuristic_id, h.fire_count == 0, h.signal_count == 0)
        )
        if result.rowcount == 0:
            return False
        await self.changes.append(connection, tenant, [("remove", heuristic_id)], self._clock.now())
        return True

    async def confidence_history(
        self, tenant: str, heuristic_id: str, limit: int = 100
    ) -> builtins.list[dict[str, Any]]:
        """The heuristic's latest confidence changes, newest first (no count: a caller that pages
        takes ``confidence_page``)."""
        async with self._db.connect() as conn:
            rows = await conn.execute(_confidence_events(tenant, heuristic_id).limit(limit))
            return [_mapping(row) for row in rows]

    async def confidence_page(self, tenant: str, heuristic_id: str, *, limit: int, offset: int) -> Page[dict[str, Any]]:
        """One page of the heuristic's confidence changes, newest first, and how many there are."""
        async with self._db.connect() as conn:
            events = _confidence_events(tenant, heuristic_id)
            return await fetch_page(conn, events, _mapping, limit=limit, offset=offset)

    async def iter_rows(self, batch_size: int = 5000) -> AsyncIterator[builtins.list[IndexedRow]]:
        """Every heuristic's condition and embedding, in batches, for rebuilding the vector index."""
        async for batch in rows_in_key_order(self._db, _INDEXED, heuristics, _indexed, batch_size=batch_size):
            yield batch

    async def rows(self, tenant: str, keys: Sequence[str]) -> builtins.list[IndexedRow]:
        """The heuristics ``keys`` as they stand now (a deleted one is absent)."""
        return await rows_by_key(self._db, _INDEXED, heuristics, _indexed, tenant, keys)

    async def set_embeddings(self, items: Sequence[tuple[str, str, Vectors]], embedding_model: str) -> None:
        """Store vectors computed again (another model): other processes re-read these rows."""
        await store_embeddings_now(
            self._db,
            heuristics,
            items,
            embedding_model,
            at=self._clock.now(),
            changes=self.changes,
            vector_column=self.vector_column,
        )


def _mapping(row: Any) -> dict[str, Any]:
    return dict(row._mapping)


def _confidence_events(tenant: str, heuristic_id: str) -> Select[Any]:
    c = confidence_events.c
    return select(confidence_events).where(c.tenant == tenant, c.heuristic_id == heuristic_id).order_by(c.id.desc())
