"""Real ``phronesis`` processes for tests: servers on loopback and one-shot CLI commands."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.loopback import free_port


def phronesis_env(data_dir: Path, **variables: str) -> dict[str, str]:
    """The environment of a phronesis process: this one's, a data directory, the hashing embedder."""
    return {
        **os.environ,
        "PHRONESIS_DATA_DIR": str(data_dir),
        "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384",
        "PHRONESIS_PROACTIVE__SCHEDULER": "false",
        **variables,
    }


def console(env: Mapping[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``phronesis ARGS`` through the installed entry point, as a user does, to completion."""
    return subprocess.run(
        [sys.executable, "-m", "phronesis", *args], env=dict(env), capture_output=True, text=True, timeout=120
    )


def cli(env: Mapping[str, str], *args: str) -> str:
    """Run ``phronesis ARGS`` to completion; its standard output (a failure raises with its stderr)."""
    done = console(env, *args)
    assert done.returncode == 0, f"phronesis {' '.join(args)} failed: {done.stderr}"
    return done.stdout


@contextmanager
def server(
    env: Mapping[str, str], *args: str, timeout_s: float = 90.0, output: list[str] | None = None
) -> Iterator[str]:
    """``phronesis serve --dev ARGS`` on a free port until the block ends; yields its base URL.
    What the server printed is appended to ``output`` once it has stopped. Its output is read
    while it runs: a full pipe would block the server on its next log line."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "phronesis", "serve", "--dev", "--port", str(port), *args],
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    lines: list[str] = []
    assert process.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(process.stdout or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None:
                reader.join(timeout=10)
                raise RuntimeError("the server exited during start-up:\n" + "".join(lines))
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not become healthy")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=10)
        process.stdout.close()
        if output is not None:
            output.append("".join(lines))


def within(seconds: float, check: Callable[[], bool], *, every_s: float = 0.02) -> float:
    """Poll ``check`` (a request) until it holds: how long after the start the request that saw it
    was sent. Fails unless a request sent within ``seconds`` sees it (a slow machine may take
    longer to answer; what is measured is how soon the write is visible)."""
    start = time.monotonic()
    while True:
        sent = time.monotonic() - start
        if check():
            return sent
        assert sent < seconds, f"not seen by a request sent within {seconds} s"
        time.sleep(every_s)
