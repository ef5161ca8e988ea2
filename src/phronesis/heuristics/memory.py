"""Heuristic memory: the repository (store of record) plus the vector indexes plus the embedder.

Writes go to the database first and then to the index, so a failed write never leaves
the index ahead of the data. The index is rebuilt from the database on start (rows embedded
with another model, or not at all, are re-embedded then) and follows the database's change
feed, so a heuristic added, changed or deleted by another process (the CLI, another API
worker) is matched here too (``storage.followed_index``).

Two indexes: the conditions, and the examples and counter-examples of each heuristic's scope
(``heuristics.examples``). A match is judged on the whole scope (``heuristics.scope``):
near an example that is not the event's opposite, and nearer it than any counter-example.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypedDict, Unpack

import numpy as np
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.embeddings.types import Embedder, Vectors, embed_in_chunks
from phronesis.exceptions import InvalidInputError
from phronesis.heuristics.examples import (
    MAX_GIVEN,
    Example,
    ExampleKind,
    ExampleRepository,
    NewExample,
    StoredExample,
)
from phronesis.heuristics.models import (
    ConfidenceUpdate,
    Heuristic,
    HeuristicCreate,
    HeuristicCreated,
    HeuristicMatch,
    HeuristicUpdate,
    Origin,
)
from phronesis.heuristics.ranking import rank_similarity_dominant
from phronesis.heuristics.repository import HeuristicRepository
from phronesis.heuristics.scope import ScopeJudgement, Situation, judge_scope
from phronesis.heuristics.settings import HeuristicSettings
from phronesis.pages import Page
from phronesis.storage.feed_follower import SnapshotPolicy
from phronesis.storage.followed_index import CollectionIndex, FollowedIndex
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.pgvector import PgVectorCollection, PgVectorColumn
from phronesis.storage.vector_backend import VectorBackend

__all__ = ["HeuristicMemory", "Judged", "MatchOptions", "SetAside"]


@dataclass(frozen=True, slots=True)
class SetAside:
    """A heuristic near an event that its scope judgement ruled out, and why in words."""

    heuristic: Heuristic
    why: str

    def noted(self) -> dict[str, str]:
        """As a decision's record keeps it (``candidates_set_aside``)."""
        h = self.heuristic
        return {"heuristic_id": h.id, "condition_text": h.condition_text, "action_text": h.action_text, "why": self.why}


class MatchOptions(TypedDict, total=False):
    """How a match is asked: ``source`` (the domain, hard), ``k`` (default ``heuristics.top_k``),
    ``min_similarity`` (default ``heuristics.min_similarity``), ``min_confidence`` (default 0) and
    ``include_general`` (heuristics with no domain too; default false)."""

    source: str | None
    k: int | None
    min_similarity: float | None
    min_confidence: float
    include_general: bool


@dataclass(frozen=True, slots=True)
class Judged:
    """``HeuristicMemory.match_judged``'s answer: the matches, best first, and those set aside."""

    matches: list[HeuristicMatch]
    set_aside: list[SetAside]


OVERSAMPLE = 4
"""Fetch this many times k from the index so the confidence filter still leaves k."""


@dataclass(frozen=True, slots=True)
class _ScopeWrites:
    """Examples a transaction removed and added (with their vectors), to index once it commits."""

    removed: list[str]
    added: list[tuple[str, list[Example], Vectors]]


class HeuristicMemory:
    def __init__(
        self,
        repository: HeuristicRepository,
        embedder: Embedder,
        index: PartitionedIndex,
        settings: HeuristicSettings,
        *,
        examples: ExampleRepository,
        follow_interval_s: float = 0.0,
        snapshot: SnapshotPolicy | None = None,
        backend: VectorBackend | None = None,
    ) -> None:
        self._backend = backend or VectorBackend()
        self.repository = repository
        self.examples = examples
        self.embedder = embedder
        self.index = index
        self.settings = settings
        self._conditions: CollectionIndex = FollowedIndex(
            index, repository, repository.changes, embedder, interval_s=follow_interval_s, snapshot=snapshot
        )
        self._examples: CollectionIndex = FollowedIndex(
            PartitionedIndex(embedder.dimension), examples, examples.changes, embedder, interval_s=follow_interval_s
        )
        database = repository.database
        self._conditions_in_database = PgVectorCollection(database, PgVectorColumn.of("heuristics"), partition="domain")
        self._examples_in_database = PgVectorCollection(
            database, PgVectorColumn.of("heuristic_examples"), partition="domain"
        )

    @property
    def vectors(self) -> CollectionIndex:
        """Where conditions are searched: in this process, following the database, or in PostgreSQL
        (the engine's ``VectorBackend``)."""
        return self._conditions_in_database if self._backend.in_database else self._conditions

    @property
    def example_vectors(self) -> CollectionIndex:
        """Where examples and counter-examples are searched, partitioned by their heuristic's domain."""
        return self._examples_in_database if self._backend.in_database else self._examples

    async def get(self, tenant: str, heuristic_id: str) -> Heuristic:
        return await self.repository.get(tenant, heuristic_id)

    async def page(
        self,
        tenant: str,
        *,
        domain: str | None = None,
        origin: Origin | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> Page[Heuristic]:
        return await self.repository.list(tenant, domain=domain, origin=origin, limit=limit, offset=offset)

    async def scope(self, tenant: str, heuristic_id: str) -> list[Example]:
        """A heuristic's examples, then its counter-examples (seed 000's scope of a situation)."""
        return await self.examples.list(tenant, heuristic_id)

    async def scopes(self, tenant: str, heuristic_ids: Sequence[str]) -> dict[str, list[Example]]:
        """The scopes of a page of heuristics, in one read (an export)."""
        return await self.examples.of_many(tenant, heuristic_ids)

    def indexed(self) -> tuple[int, dict[str, int]]:
        """How many conditions the search holds here, and its partitions (domains): health and metrics."""
        return len(self.vectors), self.vectors.kinds()

    async def _embed(self, texts: Sequence[str]) -> Vectors:
        return await embed_in_chunks(self.embedder, texts)

    async def load_index(self, progress: Callable[[int], None] | None = None) -> int:
        """Load the indexes (a snapshot and the changes after it, or the table); how many heuristics they hold."""
        loaded = await self.vectors.load(progress)
        await self.example_vectors.load()
        return loaded

    async def create(self, tenant: str, data: HeuristicCreate) -> HeuristicCreated:
        """Add one heuristic (``POST /v1/heuristics``), saying which it repeats: same domain, same
        condition. Both are kept (a second one may be meant); the caller is told, not refused."""
        same = await self.repository.with_condition(tenant, data.domain, data.condition_text)
        created = await self.add(tenant, data)
        duplicates = [h.id for h in same if h.id != created.id]
        warning = (
            f"a heuristic with this condition already exists in domain {data.domain!r}: "
            f"{', '.join(duplicates)} (both are kept and both match; delete one if it was not meant)"
            if duplicates
            else None
        )
        return HeuristicCreated.model_validate(created.model_dump() | {"duplicate_of": duplicates, "warning": warning})

    async def add(self, tenant: str, data: HeuristicCreate) -> Heuristic:
        return (await self.add_many(tenant, [data]))[0]

    async def add_many(
        self,
        tenant: str,
        items: Sequence[HeuristicCreate],
        *,
        connection: AsyncConnection | None = None,
        vectors: Vectors | None = None,
        upsert: bool = False,
    ) -> list[Heuristic]:
        """Embed and store all of ``items`` atomically, then index them.

        With ``connection`` the rows join the caller's transaction and reach the index only
        when it commits, so a rolled-back transaction leaves no trace in the index either.
        A caller inside a transaction passes ``vectors`` (the conditions' embeddings, computed
        before it began) so that no model call runs while the transaction holds the database.
        """
        if not items:
            return []
        if vectors is None:
            vectors = await self._embed([item.condition_text for item in items])
        elif len(vectors) != len(items):
            raise ValueError("one vector per item is needed")
        scopes: list[list[tuple[ExampleKind, str]]] = [
            [*(("example", t) for t in item.examples), *(("counter", t) for t in item.counter_examples)]
            for item in items
        ]
        flat = [text for scope in scopes for _, text in scope]
        scope_vectors = await self._embed(flat) if flat else np.zeros((0, self.embedder.dimension), np.float32)
        async with self.repository.database.joined(connection) as conn:
            created = await self.repository.create_many(
                tenant, items, vectors, self.embedder.model_name, connection=conn, upsert=upsert
            )
            replaced = await self._given_scopes(conn, tenant, created, scopes, scope_vectors, upsert=upsert)

            def index_created(*_: object) -> None:
                by_domain: dict[str, list[int]] = {}
                for i, h in enumerate(created):
                    by_domain.setdefault(h.domain, []).append(i)
                for domain, rows in by_domain.items():
                    self.vectors.applied(tenant, domain, [created[i].id for i in rows], vectors[rows])
                for key in replaced.removed:
                    self.example_vectors.removed(tenant, key)
                for domain, stored, own in replaced.added:
                    self.example_vectors.applied(tenant, domain, [e.id for e in stored], own)

            pending: Callable[[], None] | None = index_created
            if connection is not None:
                event.listen(connection.sync_connection, "commit", index_created, once=True)
                pending = None
        if pending is not None:
            pending()
        return created

    async def _given_scopes(
        self,
        conn: AsyncConnection,
        tenant: str,
        created: Sequence[Heuristic],
        scopes: Sequence[Sequence[tuple[ExampleKind, str]]],
        vectors: Vectors,
        *,
        upsert: bool,
    ) -> _ScopeWrites:
        """The examples given with new heuristics, stored in their transaction; an import over a
        heuristic (``upsert``) replaces the examples it was given before (what it learned stays)."""
        writes = _ScopeWrites([], [])
        at = 0
        for heuristic, scope in zip(created, scopes, strict=True):
            if upsert:
                writes.removed.extend(await self.examples.remove_given(conn, tenant, heuristic.id))
            if not scope:
                continue
            own = vectors[at : at + len(scope)]
            at += len(scope)
            stored = await self.examples.insert(
                conn,
                tenant,
                heuristic.id,
                heuristic.domain,
                [NewExample(kind, text, vector) for (kind, text), vector in zip(scope, own, strict=True)],
                self.embedder.model_name,
            )
            writes.added.append((heuristic.domain, stored, own))
        return writes

    async def update(self, tenant: str, heuristic_id: str, patch: HeuristicUpdate) -> Heuristic:
        vector: Vectors | None = None
        if patch.condition_text is not None:
            vector = await self._embed([patch.condition_text])
        async with self.repository.database.transaction() as conn:
            before, after = await self.repository.update(
                tenant,
                heuristic_id,
                patch,
                embedding=None if vector is None else vector[0],
                embedding_model=self.embedder.model_name if vector is not None else None,
                connection=conn,
            )
            moved = (
                await self.examples.moved(conn, tenant, heuristic_id, after.domain)
                if before.domain != after.domain
                else []
            )
        if vector is not None or before.domain != after.domain:
            if vector is None:
                vector = await self._embed([after.condition_text])
            self.vectors.applied(tenant, after.domain, [heuristic_id], vector)
        embedded = [(row.key, row.embedding) for row in moved if row.embedding is not None]
        if embedded:  # its examples follow it to its new domain
            self.example_vectors.applied(
                tenant, after.domain, [key for key, _ in embedded], np.stack([vector for _, vector in embedded])
            )
        return after

    async def delete(self, tenant: str, heuristic_id: str) -> Heuristic:
        async with self.repository.database.transaction() as conn:
            examples = await self.examples.removed_with(conn, tenant, heuristic_id)
            deleted = await self.repository.delete(tenant, heuristic_id, connection=conn)
        self.vectors.removed(tenant, heuristic_id)
        for key in examples:
            self.example_vectors.removed(tenant, key)
        return deleted

    async def add_examples(
        self,
        tenant: str,
        heuristic_id: str,
        texts: Sequence[str],
        kind: ExampleKind,
    ) -> list[Example]:
        """Given examples (or counter-examples) added to a heuristic's scope (the API, the CLI)."""
        heuristic = await self.repository.get(tenant, heuristic_id)  # 404 for an unknown one
        vectors = await self._embed(texts)
        async with self.repository.database.transaction() as conn:
            given = (await self.examples.counts(tenant, heuristic_id, connection=conn)).get(kind, 0)
            if given + len(texts) > MAX_GIVEN:
                raise InvalidInputError("text", f"a heuristic keeps at most {MAX_GIVEN} given {kind}s; it has {given}")
            stored = await self.examples.insert(
                conn,
                tenant,
                heuristic_id,
                heuristic.domain,
                [NewExample(kind, text, vector) for text, vector in zip(texts, vectors, strict=True)],
                self.embedder.model_name,
            )
        self.example_vectors.applied(tenant, heuristic.domain, [e.id for e in stored], vectors)
        return stored

    async def learn_examples(
        self, connection: AsyncConnection, tenant: str, heuristic_id: str, items: Sequence[NewExample]
    ) -> list[Example]:
        """Examples learned from feedback, in the caller's transaction; indexed here once it commits."""
        domain = await self.examples.domain_of(connection, tenant, heuristic_id)
        if domain is None or not items:
            return []
        stored = await self.examples.insert(connection, tenant, heuristic_id, domain, items, self.embedder.model_name)
        kept = {example.id for example in stored}
        vectors = np.stack([np.asarray(item.vector, dtype=np.float32) for item in items])

        def index(*_: object) -> None:
            rows = [i for i, example in enumerate(stored) if example.id in kept]
            self.example_vectors.applied(tenant, domain, [stored[i].id for i in rows], vectors[rows])

        event.listen(connection.sync_connection, "commit", index, once=True)
        return stored

    async def unlearn(self, connection: AsyncConnection, tenant: str, fire_id: str, taught_by: Sequence[str]) -> int:
        """Take back what a fire's earlier rating taught the scope (last click wins), in the caller's
        transaction; removed from the index here once it commits. How many went."""
        removed = await self.examples.remove_taught(connection, tenant, fire_id, taught_by)

        def index(*_: object) -> None:
            for key in removed:
                self.example_vectors.removed(tenant, key)

        if removed:
            event.listen(connection.sync_connection, "commit", index, once=True)
        return len(removed)

    async def remove_example(self, tenant: str, heuristic_id: str, example_id: str) -> Example:
        removed = await self.examples.delete(tenant, heuristic_id, example_id)
        self.example_vectors.removed(tenant, example_id)
        return removed

    async def update_confidence(
        self, tenant: str, heuristic_id: str, *, positive: bool, magnitude: float | None, source: str
    ) -> ConfidenceUpdate:
        return await self.repository.update_confidence(
            tenant, heuristic_id, positive=positive, magnitude=magnitude, source=source
        )

    async def match(self, tenant: str, text: str, **options: Unpack[MatchOptions]) -> list[HeuristicMatch]:
        """The best ``k`` heuristics whose scope ``text`` falls in (seed 000 candidates).

        ``source`` filters hard on the heuristic's domain; ``include_general`` also admits
        heuristics with no domain, which apply to every source.
        """
        return (await self.match_text_judged(tenant, text, **options)).matches

    async def match_text_judged(self, tenant: str, text: str, **options: Unpack[MatchOptions]) -> Judged:
        """``match``, with the near heuristics set aside (``match_judged``)."""
        if not text.strip():
            raise InvalidInputError("text", "must not be blank")
        if len(text) > self.settings.max_text_chars:
            raise InvalidInputError("text", f"longer than {self.settings.max_text_chars} characters")
        vector = (await self.embedder.embed([text]))[0]
        return await self.match_judged(tenant, vector, text=text, **options)

    async def match_vector(
        self, tenant: str, vector: Vectors, *, text: str, **options: Unpack[MatchOptions]
    ) -> list[HeuristicMatch]:
        """The best ``k`` heuristics whose scope ``text`` (embedded as ``vector``) falls in, ranked
        similarity-dominant. A heuristic is a candidate when its condition or one of its examples is
        at least ``min_similarity`` similar; ``heuristics.scope`` judges it on its whole scope."""
        return (await self.match_judged(tenant, vector, text=text, **options)).matches

    async def match_judged(
        self,
        tenant: str,
        vector: Vectors,
        *,
        text: str,
        source: str | None = None,
        k: int | None = None,
        min_similarity: float | None = None,
        min_confidence: float = 0.0,
        include_general: bool = False,
    ) -> Judged:
        """``match_vector``'s matches, and the near heuristics its scope judgement set aside with why:
        a decision that fired nothing says which heuristic the event was near and why it did not fire
        (the event is its condition's opposite, or a counter-example is as near)."""
        k = k or self.settings.top_k
        domains = None if source is None else ([source, ""] if include_general else [source])
        floor = self.settings.min_similarity if min_similarity is None else min_similarity
        conditions, near_examples = await asyncio.gather(
            self.vectors.search(tenant, vector, k * OVERSAMPLE, partitions=domains),
            self.example_vectors.search(tenant, vector, k * OVERSAMPLE, partitions=domains),
        )
        by_condition = {key: score for _, key, score in conditions if score >= floor}
        # a counter-example vetoes from ``counter_margin`` below the best positive: those are near too
        near = [key for _, key, score in near_examples if score >= floor - self.settings.counter_margin]
        owners = await self.examples.owners(tenant, near) if near else set()
        ids = [*by_condition, *sorted(owners - by_condition.keys())]
        if not ids:
            return Judged([], [])
        rows = await self.repository.get_many(tenant, ids)
        scopes = await self.examples.scopes(tenant, sorted(owners)) if owners else {}
        matches: list[HeuristicMatch] = []
        set_aside: list[SetAside] = []
        for heuristic_id in ids:
            heuristic = rows.get(heuristic_id)
            if heuristic is None or heuristic.confidence < min_confidence:
                continue
            scope = scopes.get(heuristic_id, [])
            judgement = self._judge(text, vector, heuristic, by_condition.get(heuristic_id), scope, floor)
            if not judgement.matches and judgement.why_not != "below_floor":
                set_aside.append(SetAside(heuristic, judgement.why_set_aside()))
            if judgement.matches:
                matches.append(
                    HeuristicMatch(
                        heuristic=heuristic,
                        similarity=judgement.similarity,
                        score=judgement.similarity * heuristic.confidence,
                        matched_text=judgement.matched_text,
                        matched_example_id=judgement.matched_example_id,
                        counter_similarity=judgement.counter_similarity,
                    )
                )
        ranked = rank_similarity_dominant(
            matches,
            similarity=lambda m: m.similarity,
            confidence=lambda m: m.heuristic.confidence,
            epsilon=self.settings.tie_epsilon,
        )
        return Judged(ranked[:k], set_aside)

    async def judge_given(
        self, tenant: str, text: str, given: Sequence[tuple[str, str]]
    ) -> dict[str, tuple[ScopeJudgement, float, str]]:
        """Whether ``text`` falls in the scope of each (heuristic id, condition) a caller matched itself,
        judged as a match is: a stored heuristic on its own scope (condition, examples,
        counter-examples), an unknown one on the condition given; an opposite ("too warm" for "too
        cold") or a similarity below memory's floor (seed 000's ``SALIENCE_HEURISTIC_MIN_SIMILARITY``)
        does not match, however the caller matched it. Each with the event's cosine similarity to the
        condition (what an opposite is, side by side: the judgement's own is -1 without a positive)
        and the condition judged (the stored one). An unknown heuristic sent without its condition
        cannot be judged and is left out."""
        if not given:
            return {}
        rows = await self.repository.get_many(tenant, [heuristic_id for heuristic_id, _ in given])
        judgeable = [(h, rows[h].condition_text if h in rows else condition) for h, condition in given]
        judgeable = [(h, condition) for h, condition in judgeable if condition]
        if not judgeable:
            return {}
        vectors = await self._embed([text, *(condition for _, condition in judgeable)])
        vector = np.asarray(vectors[0], dtype=np.float32)
        scopes = await self.examples.scopes(tenant, sorted(rows)) if rows else {}
        floor = self.settings.min_similarity
        out: dict[str, tuple[ScopeJudgement, float, str]] = {}
        for (heuristic_id, condition), condition_vector in zip(judgeable, vectors[1:], strict=True):
            similarity = float(np.dot(np.asarray(condition_vector, dtype=np.float32), vector))
            stored = rows.get(heuristic_id)
            judged = (
                judge_scope(text, [Situation(None, condition, similarity)], [], floor=floor)
                if stored is None
                else self._judge(text, vectors[0], stored, similarity, scopes.get(heuristic_id, []), floor)
            )
            out[heuristic_id] = (judged, similarity, condition)
        return out

    def _judge(
        self,
        text: str,
        vector: Vectors,
        heuristic: Heuristic,
        condition: float | None,
        scope: Sequence[StoredExample],
        floor: float,
    ) -> ScopeJudgement:
        """One heuristic's scope judged for the event. The condition's similarity is the search's
        (below the floor it cannot be the match, so a heuristic found by an example leaves it out);
        the examples' are computed here from their stored vectors."""
        positives = [] if condition is None else [Situation(None, heuristic.condition_text, condition)]
        counters: list[Situation] = []
        embedded = [(e, e.vector) for e in scope if e.vector is not None and len(e.vector) == len(vector)]
        if embedded:
            similarities = np.stack([v for _, v in embedded]) @ np.asarray(vector, dtype=np.float32)
            for (example, _), similarity in zip(embedded, similarities.tolist(), strict=True):
                situation = Situation(example.id, example.text, float(similarity))
                (positives if example.kind == "example" else counters).append(situation)
        return judge_scope(text, positives, counters, floor=floor, counter_margin=self.settings.counter_margin)
