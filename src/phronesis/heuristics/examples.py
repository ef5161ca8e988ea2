"""A heuristic's examples and counter-examples in the relational store.

A heuristic is more than one condition text that an event matches when close enough to that one
sentence: its *scope* is the condition plus examples (other situations it applies to)
and counter-examples (situations near them it does not apply to), given when it is made or
learned from what happened after it fired (``learning.lessons``). They are searched beside the
conditions (their own change-feed collection, ``examples``, followed like every index) and
judged by ``heuristics.scope``.

Learned examples of each kind are capped (``MAX_LEARNED``): the oldest learned one makes room;
given ones are never dropped by learning.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import ConfigDict, StringConstraints
from sqlalchemy import Row, bindparam, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.clock import Clock
from phronesis.embeddings.types import Vectors
from phronesis.exceptions import NotFoundError
from phronesis.ids import new_id
from phronesis.schema import Schema
from phronesis.storage.change_feed import ChangeLog, Op
from phronesis.storage.database import Database
from phronesis.storage.followed_index import IndexedRow
from phronesis.storage.index_rows import rows_by_key, rows_in_key_order
from phronesis.storage.pgvector import PgVectorColumn
from phronesis.storage.reembedding import store_embeddings_now
from phronesis.storage.tables import heuristic_examples, heuristics
from phronesis.storage.vector_backend import VectorBackend

__all__ = [
    "MAX_GIVEN",
    "MAX_LEARNED",
    "Example",
    "ExampleIn",
    "ExampleKind",
    "ExampleRepository",
    "NewExample",
    "Scope",
    "StoredExample",
]

ExampleKind = Literal["example", "counter"]
ExampleOrigin = Literal["given", "learned"]

MAX_GIVEN = 50
"""Examples (and as many counter-examples) a caller may give one heuristic."""
MAX_LEARNED = 50
"""Learned examples (and as many counter-examples) one heuristic keeps; the oldest makes room."""

_t = heuristic_examples.c
_SCOPES = select(_t.heuristic_id, _t.id, _t.kind, _t.text, _t.embedding, _t.embedding_model).where(
    _t.tenant == bindparam("w_tenant"), _t.heuristic_id.in_(bindparam("w_ids", expanding=True))
)
"""Every example of a few heuristics, with its vector: on every decision's path (built once)."""
_OWNERS = select(_t.heuristic_id).where(
    _t.tenant == bindparam("w_tenant"), _t.id.in_(bindparam("w_ids", expanding=True))
)
_INDEXED = select(_t.tenant, _t.id, _t.domain, _t.text, _t.embedding, _t.embedding_model)
_PUBLIC = [c for c in heuristic_examples.c if c.name not in ("tenant", "domain", "embedding", "embedding_model")]


class Example(Schema):
    """One situation in a heuristic's scope, as the API shows it."""

    id: str
    """The example's id."""
    heuristic_id: str
    """The heuristic whose scope it is part of."""
    kind: ExampleKind
    """``example``: a situation the heuristic applies to; ``counter``: a situation near its examples that it does
    not apply to."""
    text: str
    """The situation, in words."""
    origin: ExampleOrigin
    """``given`` (at creation, by import or through the API) or ``learned`` (from feedback on a fire)."""
    taught_by: str | None
    """What taught a learned one: the signal's source (``user_explicit``, ``implicit_undo``, ``user_implicit``…) or
    ``answer`` (a user's answer to a missed event). None for a given one."""
    event_id: str | None
    """The event it was learned from; None for a given one."""
    fire_id: str | None
    """The fire whose outcome taught it; None for a given one."""
    created_at: datetime
    """When it was added (UTC)."""


class ExampleIn(Schema):
    """A situation to add to a heuristic's scope."""

    model_config = ConfigDict(extra="forbid")

    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4000)]
    """The situation, in words (1 to 4000 characters, trimmed)."""
    kind: ExampleKind = "example"
    """``example`` (it applies here too) or ``counter`` (it does not apply here, though it looks near)."""


class Scope(Schema):
    """Where a heuristic applies: besides its condition, these examples, and not these counter-examples."""

    examples: builtins.list[Example]
    """Situations it applies to, given or learned, oldest first."""
    counter_examples: builtins.list[Example]
    """Situations near them it does not apply to, given or learned, oldest first."""

    @classmethod
    def of(cls, examples: Sequence[Example]) -> Scope:
        return cls(
            examples=[e for e in examples if e.kind == "example"],
            counter_examples=[e for e in examples if e.kind == "counter"],
        )


@dataclass(frozen=True, slots=True)
class NewExample:
    kind: ExampleKind
    text: str
    vector: Vectors
    origin: ExampleOrigin = "given"
    taught_by: str | None = None
    event_id: str | None = None
    fire_id: str | None = None


@dataclass(frozen=True, slots=True)
class StoredExample:
    """An example as matching judges it: its text and its vector (None: not embedded yet)."""

    id: str
    kind: ExampleKind
    text: str
    vector: Vectors | None
    embedding_model: str | None


def _indexed(row: Row[Any, Any, Any, Any, Any, Any]) -> IndexedRow:
    return IndexedRow(row.tenant, row.id, row.domain, row.text, row.embedding, row.embedding_model)


class ExampleRepository:
    def __init__(self, database: Database, clock: Clock, *, backend: VectorBackend | None = None) -> None:
        self._db = database
        self._backend = backend or VectorBackend()
        self._clock = clock
        self.changes = ChangeLog(database, "examples")

    @property
    def vector_column(self) -> PgVectorColumn | None:
        """pgvector's column, where the database has it: every write of an example's vector fills it too."""
        return self._backend.column("heuristic_examples")

    async def insert(
        self,
        connection: AsyncConnection,
        tenant: str,
        heuristic_id: str,
        domain: str,
        items: Sequence[NewExample],
        embedding_model: str,
    ) -> list[Example]:
        """Store ``items`` in the caller's transaction, with their feed entries; then make room: each
        kind keeps at most ``MAX_LEARNED`` learned ones (the oldest go, with their feed entries)."""
        if not items:
            return []
        now = self._clock.now()
        rows: builtins.list[dict[str, Any]] = [
            {
                "tenant": tenant,
                "id": new_id(),
                "heuristic_id": heuristic_id,
                "domain": domain,
                "kind": item.kind,
                "text": item.text,
                "origin": item.origin,
                "taught_by": item.taught_by,
                "event_id": item.event_id,
                "fire_id": item.fire_id,
                "embedding": np.asarray(item.vector, dtype=np.float32),
                "embedding_model": embedding_model,
                "created_at": now,
            }
            for item in items
        ]
        await connection.execute(heuristic_examples.insert(), rows)
        learned = {item.kind for item in items if item.origin == "learned"}
        dropped = await self._make_room(connection, tenant, heuristic_id, learned)
        kept = [row for row in rows if row["id"] not in dropped]
        changes: builtins.list[tuple[Op, str]] = [("remove", key) for key in dropped]
        changes += [("add", row["id"]) for row in kept]
        await self.changes.append(connection, tenant, changes, now)
        if self.vector_column is not None:
            await self.vector_column.write(connection, tenant, [(row["id"], row["embedding"]) for row in kept])
        return [Example.model_validate(row) for row in kept]

    async def _make_room(
        self, connection: AsyncConnection, tenant: str, heuristic_id: str, kinds: Iterable[str]
    ) -> builtins.set[str]:
        dropped: builtins.set[str] = set()
        for kind in sorted(kinds):
            learned = (
                (
                    await connection.execute(
                        select(_t.id)
                        .where(
                            _t.tenant == tenant,
                            _t.heuristic_id == heuristic_id,
                            _t.kind == kind,
                            _t.origin == "learned",
                        )
                        .order_by(_t.created_at.desc(), _t.id.desc())
                        .offset(MAX_LEARNED)
                    )
                )
                .scalars()
                .all()
            )
            if learned:
                await connection.execute(delete(heuristic_examples).where(_t.tenant == tenant, _t.id.in_(learned)))
                dropped.update(learned)
        return dropped

    async def scopes(self, tenant: str, heuristic_ids: Sequence[str]) -> dict[str, builtins.list[StoredExample]]:
        """Each heuristic's examples with their vectors (a point read on every decision's path)."""
        if not heuristic_ids:
            return {}
        rows = await self._db.read(_SCOPES, {"w_tenant": tenant, "w_ids": builtins.list(heuristic_ids)})
        found: dict[str, builtins.list[StoredExample]] = {}
        for heuristic_id, example_id, kind, text, vector, model in rows:
            found.setdefault(heuristic_id, []).append(StoredExample(example_id, kind, text, vector, model))
        return found

    async def owners(self, tenant: str, example_ids: Sequence[str]) -> builtins.set[str]:
        """The heuristics these examples belong to (what a search of the examples found)."""
        if not example_ids:
            return set()
        rows = await self._db.read(_OWNERS, {"w_tenant": tenant, "w_ids": builtins.list(example_ids)})
        return {row[0] for row in rows}

    async def list(self, tenant: str, heuristic_id: str) -> builtins.list[Example]:
        """A heuristic's scope as the API shows it: examples first, then counter-examples, oldest first."""
        async with self._db.connect() as conn:
            rows = await conn.execute(
                select(*_PUBLIC)
                .where(_t.tenant == tenant, _t.heuristic_id == heuristic_id)
                .order_by(_t.kind.desc(), _t.created_at, _t.id)
            )
            return [Example.model_validate(dict(row._mapping)) for row in rows]

    async def of_many(self, tenant: str, heuristic_ids: Sequence[str]) -> dict[str, builtins.list[Example]]:
        """The scopes of a page of heuristics (an export), in one read."""
        found: dict[str, builtins.list[Example]] = {}
        if not heuristic_ids:
            return found
        async with self._db.connect() as conn:
            rows = await conn.execute(
                select(*_PUBLIC)
                .where(_t.tenant == tenant, _t.heuristic_id.in_(builtins.list(heuristic_ids)))
                .order_by(_t.heuristic_id, _t.kind.desc(), _t.created_at, _t.id)
            )
            for row in rows:
                example = Example.model_validate(dict(row._mapping))
                found.setdefault(example.heuristic_id, []).append(example)
        return found

    async def delete(self, tenant: str, heuristic_id: str, example_id: str) -> Example:
        async with self._db.transaction() as conn:
            row = (
                await conn.execute(
                    delete(heuristic_examples)
                    .where(_t.tenant == tenant, _t.heuristic_id == heuristic_id, _t.id == example_id)
                    .returning(*_PUBLIC)
                )
            ).one_or_none()
            if row is None:
                raise NotFoundError("example", example_id)
            await self.changes.append(conn, tenant, [("remove", example_id)], self._clock.now())
        return Example.model_validate(dict(row._mapping))

    async def removed_with(self, connection: AsyncConnection, tenant: str, heuristic_id: str) -> builtins.list[str]:
        """The heuristic is being deleted in ``connection``'s transaction (its examples go with it,
        ON DELETE CASCADE): their removal announced on the feed. Their ids."""
        ids = builtins.list(
            (await connection.execute(select(_t.id).where(_t.tenant == tenant, _t.heuristic_id == heuristic_id)))
            .scalars()
            .all()
        )
        await self.changes.append(connection, tenant, (("remove", key) for key in ids), self._clock.now())
        return ids

    async def domain_of(self, connection: AsyncConnection, tenant: str, heuristic_id: str) -> str | None:
        """The heuristic's domain (its examples' partition); None for a heuristic that is gone."""
        h = heuristics.c
        return (
            await connection.execute(select(h.domain).where(h.tenant == tenant, h.id == heuristic_id))
        ).scalar_one_or_none()

    async def positives(
        self, connection: AsyncConnection, tenant: str, heuristic_id: str
    ) -> builtins.list[StoredExample]:
        """What the heuristic is confirmed to apply to: its condition (``id`` "") and its examples, with
        their vectors (what a negative outcome's event is compared with: ``learning.lessons``)."""
        h = heuristics.c
        condition = (
            await connection.execute(
                select(h.condition_text, h.embedding, h.embedding_model).where(h.tenant == tenant, h.id == heuristic_id)
            )
        ).one_or_none()
        if condition is None:
            return []
        rows = await connection.execute(
            select(_t.id, _t.text, _t.embedding, _t.embedding_model).where(
                _t.tenant == tenant, _t.heuristic_id == heuristic_id, _t.kind == "example"
            )
        )
        found = [StoredExample("", "example", condition.condition_text, condition.embedding, condition.embedding_model)]
        found += [StoredExample(row.id, "example", row.text, row.embedding, row.embedding_model) for row in rows]
        return found

    async def remove_taught(
        self, connection: AsyncConnection, tenant: str, fire_id: str, taught_by: Sequence[str]
    ) -> builtins.list[str]:
        """The learned examples a fire's signals from ``taught_by`` sources added, removed. Their ids."""
        ids = builtins.list(
            (
                await connection.execute(
                    delete(heuristic_examples)
                    .where(
                        _t.tenant == tenant,
                        _t.fire_id == fire_id,
                        _t.origin == "learned",
                        _t.taught_by.in_(builtins.list(taught_by)),
                    )
                    .returning(_t.id)
                )
            )
            .scalars()
            .all()
        )
        await self.changes.append(connection, tenant, (("remove", key) for key in ids), self._clock.now())
        return ids

    async def remove_given(self, connection: AsyncConnection, tenant: str, heuristic_id: str) -> builtins.list[str]:
        """A heuristic imported again over itself: the examples it was given go (the import brings
        its own); what it learned stays. Their ids."""
        ids = builtins.list(
            (
                await connection.execute(
                    delete(heuristic_examples)
                    .where(_t.tenant == tenant, _t.heuristic_id == heuristic_id, _t.origin == "given")
                    .returning(_t.id)
                )
            )
            .scalars()
            .all()
        )
        await self.changes.append(connection, tenant, (("remove", key) for key in ids), self._clock.now())
        return ids

    async def moved(
        self, connection: AsyncConnection, tenant: str, heuristic_id: str, domain: str
    ) -> builtins.list[IndexedRow]:
        """The heuristic moved to ``domain``: its examples go with it (the index's partition). The
        rows as they stand now, to index in this process after the commit."""
        await connection.execute(
            update(heuristic_examples).where(_t.tenant == tenant, _t.heuristic_id == heuristic_id).values(domain=domain)
        )
        rows = (await connection.execute(_INDEXED.where(_t.tenant == tenant, _t.heuristic_id == heuristic_id))).all()
        await self.changes.append(connection, tenant, (("add", row.id) for row in rows), self._clock.now())
        return [_indexed(row) for row in rows]

    async def counts(self, tenant: str, heuristic_id: str, *, connection: AsyncConnection) -> dict[str, int]:
        """How many given examples of each kind the heuristic has (``MAX_GIVEN`` caps them)."""
        rows = await connection.execute(
            select(_t.kind, func.count())
            .where(_t.tenant == tenant, _t.heuristic_id == heuristic_id, _t.origin == "given")
            .group_by(_t.kind)
        )
        return {kind: int(count) for kind, count in rows}

    # -- the followed index's source ----------------------------------------------------------

    async def iter_rows(self, batch_size: int = 5000) -> AsyncIterator[builtins.list[IndexedRow]]:
        async for batch in rows_in_key_order(self._db, _INDEXED, heuristic_examples, _indexed, batch_size=batch_size):
            yield batch

    async def rows(self, tenant: str, keys: Sequence[str]) -> builtins.list[IndexedRow]:
        return await rows_by_key(self._db, _INDEXED, heuristic_examples, _indexed, tenant, keys)

    async def set_embeddings(self, items: Sequence[tuple[str, str, Vectors]], embedding_model: str) -> None:
        await store_embeddings_now(
            self._db,
            heuristic_examples,
            items,
            embedding_model,
            at=self._clock.now(),
            changes=self.changes,
            vector_column=self.vector_column,
        )

    async def count(self) -> int:
        async with self._db.connect() as conn:
            return int((await conn.execute(select(func.count()).select_from(heuristic_examples))).scalar_one())
