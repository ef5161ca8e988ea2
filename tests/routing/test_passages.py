"""Documents searched by passage (``routing.passages``): how a document is split, and documents
stored before passages existed (migration 0012) searched by passage too, on every backend."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import func, select

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.routing.documents import DocumentIn
from phronesis.routing.passages import MAX_WORDS, document_of, passage_key, split_passages
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.storage.migrate import upgrade
from phronesis.storage.tables import routing_documents, routing_passages
from phronesis.testing import FixedClock
from tests.conftest import admin
from tests.engines import EngineFactory

POLICY = (
    "We are SOC 2 Type II compliant and GDPR ready. Data is encrypted at rest and in transit. "
    "Enterprise has an audit log of every change."
)


def test_the_whole_document_comes_first_then_each_sentence_with_the_title() -> None:
    assert split_passages("Security", POLICY) == [
        f"Security\n{POLICY}",
        "Security: We are SOC 2 Type II compliant and GDPR ready.",
        "Security: Data is encrypted at rest and in transit.",
        "Security: Enterprise has an audit log of every change.",
    ]


def test_one_sentence_is_the_whole_document() -> None:
    assert split_passages("Trial", "The free trial lasts 14 days.") == ["Trial\nThe free trial lasts 14 days."]


def test_short_sentences_join_the_next_and_abbreviations_do_not_split() -> None:
    passages = split_passages("", "Yes. It works offline, e.g. on a plane. Sync runs when you are back online.")
    assert passages[1:] == ["Yes. It works offline, e.g. on a plane.", "Sync runs when you are back online."]


def test_a_long_run_of_words_is_cut_into_pieces_the_model_reads_whole() -> None:
    text = " ".join(f"word{i}" for i in range(MAX_WORDS * 2 + 5)) + ". Next sentence here."
    pieces = split_passages("", text)[1:]
    assert [len(p.split()) for p in pieces] == [MAX_WORDS, MAX_WORDS, 8]  # the short last sentence joins


@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=400), st.text(max_size=20))
def test_every_word_of_the_text_is_in_some_sentence_passage(text: str, title: str) -> None:
    passages = split_passages(title, text)
    assert passages[0] == f"{title}\n{text}".strip()
    if len(passages) > 1:
        said = " ".join(p.removeprefix(f"{title}: ") for p in passages[1:]).split()
        assert said == text.split()


def test_keys_name_their_document() -> None:
    assert document_of(passage_key("pricing.v2", 12)) == "pricing.v2"


@pytest.fixture(params=["sqlite", pytest.param("pgvector", marks=pytest.mark.pgvector)])
async def before_passages(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A database at revision 0011, when documents were searched whole."""
    if request.param == "sqlite":
        database = Database(f"sqlite+aiosqlite:///{tmp_path / 'old.db'}")
        await upgrade(database, "0011")
        yield database
        await database.dispose()
        return
    server = request.getfixturevalue("pgvector_server")
    name = f"phx_{uuid.uuid4().hex[:12]}"
    await admin(server, f'CREATE DATABASE "{name}"')
    database = Database(server.replace("/postgres?", f"/{name}?"))
    await upgrade(database, "0011")
    yield database
    await database.dispose()
    await admin(server, f'DROP DATABASE "{name}" WITH (FORCE)')


async def test_documents_stored_before_passages_are_searched_by_passage(
    before_passages: Database, tmp_path: Path, embedder: HashingEmbedder, clock: FixedClock
) -> None:
    whole = f"Security\n{POLICY}"
    async with before_passages.transaction() as conn:
        await conn.execute(
            routing_documents.insert(),
            {
                "tenant": "t1", "id": "security", "doc_type": "policy", "title": "Security", "text": POLICY,
                "embedding": embedder.embed_sync([whole])[0], "embedding_model": embedder.model_name,
                "published_at": None, "created_at": datetime(2026, 1, 1, tzinfo=UTC), "attributes": {},
            },
        )  # fmt: skip
    await upgrade(before_passages)
    async with before_passages.connect() as conn:
        rows = (await conn.execute(select(routing_passages).order_by(routing_passages.c.n))).all()
    assert [row.id for row in rows] == [f"security#{n}" for n in range(4)]
    assert rows[0].embedding is not None and all(row.embedding is None for row in rows[1:])  # no model ran

    settings = Settings(data_dir=tmp_path, embeddings={"spec": "hashing:384"})
    engine = Engine(settings, database=before_passages, embedder=embedder, llm=None, clock=clock)
    await engine.start(migrate=False)  # pgvector: embeds what the migration could not
    try:
        sentence = "Security: Enterprise has an audit log of every change."
        hits = await engine.routing.documents.search("t1", embedder.embed_sync([sentence])[0], 3)  # in-process: here
        async with before_passages.connect() as conn:
            missing = select(func.count()).select_from(routing_passages).where(routing_passages.c.embedding.is_(None))
            assert (await conn.execute(missing)).scalar_one() == 0
        assert [(hit.document.id, hit.passage) for hit in hits] == [("security", sentence)]
        assert hits[0].similarity == pytest.approx(1.0, abs=1e-5)
        assert np.allclose(hits[0].vector, embedder.embed_sync([whole])[0])  # the whole, for conflicts
    finally:
        await engine.close()


async def test_a_deleted_document_takes_its_passages_with_it(make_engine: EngineFactory) -> None:
    engine: Engine = await make_engine()
    await engine.routing.add_documents("t1", [DocumentIn(id="security", title="Security", text=POLICY)])
    assert await engine.routing.documents.delete("t1", "security")
    async with engine.database.connect() as conn:
        assert (await conn.execute(select(func.count()).select_from(routing_passages))).scalar_one() == 0
    vector = (await engine.embedder.embed(["Security: Data is encrypted at rest and in transit."]))[0]
    assert await engine.routing.documents.search("t1", vector, 3) == []


async def test_a_put_document_replaces_its_passages_in_one_step_for_every_process(
    make_engine: EngineFactory,
) -> None:
    """Issue 22: replacing a document took a DELETE and a POST, with the knowledge base missing it
    in between. A PUT swaps the document and its passages in one transaction, and another
    process (a second engine on the same database) searches the new passages, not the old."""
    engine: Engine = await make_engine()
    other: Engine = await make_engine()
    await engine.routing.add_documents("t1", [DocumentIn(id="security", title="Security", text=POLICY)])
    old = "Security: Data is encrypted at rest and in transit."
    await other.routing.documents.search("t1", (await engine.embedder.embed([old]))[0], 3)  # loaded before
    new_text = "Data is encrypted with AES-256 keys we rotate yearly. Backups are kept for 35 days."
    document, created = await engine.routing.documents.put(
        "t1", "security", DocumentIn(title="Security", text=new_text)
    )
    assert (document.text, created) == (new_text, False)
    async with engine.database.connect() as conn:
        stored = (await conn.execute(select(routing_passages.c.text).order_by(routing_passages.c.n))).scalars().all()
    assert stored == split_passages("Security", new_text)
    for searcher in (engine, other):
        for sentence, found in ((old, False), ("Security: Backups are kept for 35 days.", True)):
            hits = await searcher.routing.documents.search("t1", (await engine.embedder.embed([sentence]))[0], 3)
            assert any(hit.passage == sentence for hit in hits) is found, (sentence, hits)
    _, created = await engine.routing.documents.put("t1", "trial", DocumentIn(text="The trial lasts 14 days."))
    assert created
    assert [d.id for d in (await engine.routing.documents.list("t1")).items] == ["security", "trial"]


async def test_concurrent_puts_of_one_document_leave_one_whole_version(make_engine: EngineFactory) -> None:
    """Two PUTs of the same id at once: both succeed and the passages are one version's, never a
    mix or a duplicate-key failure. The document row is upserted first and its lock orders them;
    with the passages read and deleted before the upsert, the second PUT inserted passage keys
    the first had just committed (a unique violation on PostgreSQL)."""
    engine: Engine = await make_engine()
    versions = {
        name: " ".join(f"{name} sentence number {i} is long enough to stand alone." for i in range(count))
        for name, count in (("alpha", 4), ("beta", 2))
    }
    for _ in range(5):
        await asyncio.gather(
            *(engine.routing.documents.put("t1", "doc", DocumentIn(text=text)) for text in versions.values())
        )
        async with engine.database.connect() as conn:
            stored = (
                (await conn.execute(select(routing_passages.c.text).order_by(routing_passages.c.n))).scalars().all()
            )
            text = (await conn.execute(select(routing_documents.c.text))).scalar_one()
        assert stored == split_passages("", text) and text in versions.values()
