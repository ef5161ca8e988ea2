"""The main job end to end: `phronesis serve --dev` as a real process on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from phronesis.storage.migrate import head_revision
from tests.loopback import free_port
from tests.processes import server

pytestmark = pytest.mark.process  # phronesis serve


def test_serve_dev_migrates_serves_and_stores(tmp_path: Path) -> None:
    env = {**os.environ, "PHRONESIS_DATA_DIR": str(tmp_path), "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384"}
    output: list[str] = []
    with server(env, output=output) as base:
        created = httpx.post(
            f"{base}/v1/heuristics",
            json={"condition_text": "a parcel is left at the door", "action_text": "notify the user"},
        )
        assert created.status_code == 201 and created.json()["tenant"] == "default"
        assert (tmp_path / "phronesis.db").is_file()
    assert "DEV MODE" in output[0]


def test_serve_refuses_pgvector_on_a_database_without_it_in_one_line(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PHRONESIS_DATA_DIR": str(tmp_path),
        "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384",
        "PHRONESIS_INDEX__BACKEND": "pgvector",
    }
    done = subprocess.run(
        [sys.executable, "-m", "phronesis", "serve", "--dev", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "error: PHRONESIS_INDEX__BACKEND=pgvector: the database is not PostgreSQL"


def test_db_upgrade_and_config_show_say_pgvector_cannot_be_used_here(tmp_path: Path) -> None:
    """Issue 52: ``db upgrade`` printed its revision before refusing the backend; ``config show`` did
    not check it at all (``serve`` refuses it)."""
    env = {**os.environ, "PHRONESIS_DATA_DIR": str(tmp_path), "PHRONESIS_INDEX__BACKEND": "pgvector"}
    done = subprocess.run(
        [sys.executable, "-m", "phronesis", "db", "upgrade"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and done.stdout == ""  # nothing said done
    assert done.stderr.strip() == (
        "error: PHRONESIS_INDEX__BACKEND=pgvector: the database is not PostgreSQL (the schema is at revision "
        f"{head_revision()} without it)"
    )
    shown = subprocess.run(
        [sys.executable, "-m", "phronesis", "config", "show"], env=env, capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 2 and shown.stdout == ""
    assert shown.stderr.strip() == "error: PHRONESIS_INDEX__BACKEND=pgvector: the database is not PostgreSQL"


def test_a_port_in_use_is_one_line_naming_the_setting_before_anything_starts(tmp_path: Path) -> None:
    """Uvicorn reported it only after the application had logged that it was ready (issue 20)."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PHRONESIS_DATA_DIR": str(tmp_path), "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384"}
        done = subprocess.run(
            [sys.executable, "-m", "phronesis", "serve", "--dev", "--port", str(port)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2 and "Application startup" not in done.stdout + done.stderr
    assert done.stderr.strip() == (
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use; "
        "choose another port with --port or PHRONESIS_API__PORT"
    )
