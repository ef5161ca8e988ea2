"""A real phronesis server (uvicorn, in a thread) on 127.0.0.1 for API tests."""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn

from phronesis.api.app import create_app
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.settings import Settings

API_KEY = "sk-test-key-1"
OTHER_KEY = "sk-test-key-2"


@dataclass
class LiveServer:
    base_url: str
    engine: Engine

    def client(self, key: str | None = API_KEY) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=10)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data_dir: Path = tmp_path_factory.mktemp("server")
    settings = Settings(
        data_dir=data_dir,
        embeddings={"spec": "hashing:384"},
        api={"keys": {API_KEY: "tenant-a", OTHER_KEY: "tenant-b"}, "dev_mode": False},
    )
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=None)
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(engine, close_engine=True), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.02)
    yield LiveServer(f"http://127.0.0.1:{port}", engine)
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def unique() -> str:
    return uuid.uuid4().hex[:8]
