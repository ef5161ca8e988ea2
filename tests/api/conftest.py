"""A real phronesis server (uvicorn, in a thread) on 127.0.0.1 for API tests."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.server import create_app
from phronesis.settings import Settings
from tests.loopback import serving_app

API_KEY = "sk-test-key-1"
OTHER_KEY = "sk-test-key-2"


@dataclass
class LiveServer:
    base_url: str
    engine: Engine

    def client(self, key: str | None = API_KEY) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=10)


def _serve(data_dir: Path) -> Iterator[LiveServer]:
    settings = Settings(
        data_dir=data_dir,
        embeddings={"spec": "hashing:384"},
        api={"keys": {API_KEY: "tenant-a", OTHER_KEY: "tenant-b"}, "dev_mode": False},
        # tests run cycles themselves; a scheduler tick in between would consume their signals
        proactive={"scheduler": False},
    )
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=None)
    with serving_app(create_app(engine, close_engine=True)) as base_url:
        yield LiveServer(base_url, engine)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from _serve(tmp_path_factory.mktemp("server"))


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server no other module shares: for a test that leaves arbitrary state behind (the
    fuzzer pauses tenants, opts users out, mutes them), which would silence the next module's
    cycles on the shared one."""
    yield from _serve(tmp_path_factory.mktemp("own-server"))


@pytest.fixture
def unique() -> str:
    return uuid.uuid4().hex[:8]
