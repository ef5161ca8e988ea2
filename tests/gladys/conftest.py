"""One ``phronesis grpc`` process for the GLADyS wire tests: both services on free loopback ports, the
real sentence model (all-MiniLM-L6-v2, as GLADyS's memory embeds), a SQLite file the tests may read."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.loopback import free_port
from tests.processes import phronesis_env

REAL_MODEL = "local:all-MiniLM-L6-v2"


@dataclass(frozen=True)
class Gladys:
    executive: str
    """The address of ``gladys.v1.ExecutiveService``."""
    memory: str
    """The address of ``gladys.memory.MemoryStorage``."""
    database: Path
    """The SQLite file the process writes."""
    log: list[str]
    """What the process has printed so far."""


@contextmanager
def running(data_dir: Path, **variables: str) -> Iterator[Gladys]:
    """``phronesis grpc`` on free loopback ports, with these settings, until the block ends."""
    executive_port, memory_port = free_port(), free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "phronesis",
            "grpc",
            "--executive-port",
            str(executive_port),
            "--memory-port",
            str(memory_port),
        ],
        env=phronesis_env(data_dir, PHRONESIS_EMBEDDINGS__SPEC=REAL_MODEL, **variables),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while not any("MemoryStorage on" in line for line in lines):
            if process.poll() is not None or time.monotonic() > deadline:
                reader.join(timeout=5)
                raise RuntimeError("phronesis grpc did not start:\n" + "".join(lines))
            time.sleep(0.2)
        yield Gladys(f"127.0.0.1:{executive_port}", f"127.0.0.1:{memory_port}", data_dir / "phronesis.db", lines)
    finally:
        process.terminate()
        process.wait(timeout=30)
        reader.join(timeout=5)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture(scope="package")
def gladys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gladys]:
    """``phronesis grpc`` with its defaults until the package's tests end."""
    with running(tmp_path_factory.mktemp("gladys")) as served:
        yield served
