"""What the package promises about installing it: the tested versions are the lock's, and the
command line of a client-only install says in one line what is missing."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).parents[1]


def _tool(name: str) -> ModuleType:
    return importlib.import_module(f"tools.{name}")


def test_this_environment_is_the_lock() -> None:
    """make install installs with -c requirements.lock: the suite runs on exactly the locked set."""
    lock = _tool("lock")
    assert lock.written() == lock.LOCK.read_text(), "run python -m tools.lock (or reinstall with make install)"


def test_the_core_is_the_clients_and_no_server_dependency_is_capped() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert [r.split(">")[0] for r in project["dependencies"]] == ["pydantic", "httpx"]
    extras = project["optional-dependencies"]
    bounded = project["dependencies"] + extras["server"] + extras["ui"] + extras["mcp"]
    assert not [r for r in bounded if "<" in r.split(";")[0]], "caps belong in the lock"


def test_faiss_is_its_own_extra() -> None:
    """HNSW is an optimisation past 20,000 vectors a partition: a server installs without faiss and
    searches exactly (``tests/storage``: the same results, and a warning at start)."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert not [r for r in extras["server"] if r.startswith("faiss")]
    assert extras["faiss"] == ["phronesis[server]", "faiss-cpu>=1.15"]
    assert "faiss" in extras["all"][0]


def test_grpc_is_its_own_extra() -> None:
    """GLADyS's wire (``phronesis grpc``) needs grpcio and the protobuf its generated code was written for."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras["grpc"] == ["phronesis[server]", "grpcio>=1.85", "protobuf>=7.35"]
    assert not [r for r in extras["server"] if r.startswith(("grpcio", "protobuf"))]


@pytest.mark.process
def test_grpc_without_its_extra_says_what_to_install() -> None:
    code = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'grpc' else real(name, *a)\n"
        "sys.argv = ['phronesis', 'grpc']\n"
        "from phronesis.command import main\n"
        "main()\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert ran.returncode != 0
    assert ran.stderr.strip().endswith("phronesis grpc needs gRPC: pip install 'phronesis[grpc]'")


@pytest.mark.process
def test_the_command_without_the_server_extra_says_what_to_install() -> None:
    code = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'typer' else real(name, *a)\n"
        "from phronesis.command import main\n"
        "main()\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 2
    assert ran.stderr.strip() == (
        "phronesis: the command line needs the server (typer missing): pip install 'phronesis[server]'"
    )


@pytest.mark.process
def test_the_engine_without_the_server_extra_says_what_to_install() -> None:
    code = "import sys\nsys.modules['sqlalchemy'] = None  # not installed\nfrom phronesis import Engine\n"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 1
    assert ran.stderr.strip().splitlines()[-1] == (
        "ModuleNotFoundError: phronesis.Engine needs the server (sqlalchemy is not installed): "
        "pip install 'phronesis[server]'"
    )


@pytest.mark.process
def test_a_server_without_the_ui_and_mcp_extras_serves_the_rest_and_says_so(tmp_path: Path) -> None:
    code = (
        "import importlib.util, logging, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name in ('jinja2', 'mcp') else real(name, *a)\n"
        "logging.basicConfig(level=logging.WARNING, format='%(message)s')\n"
        "from fastapi.testclient import TestClient\n"
        "from phronesis.server import create_app\n"
        "with TestClient(create_app()) as client:\n"
        "    print(client.get('/ui').status_code, client.get('/mcp').status_code, client.get('/healthz').status_code)\n"
        "    print('Dashboard' in client.get('/').text)\n"
    )
    environment = os.environ | {"PHRONESIS_DATA_DIR": str(tmp_path), "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384"}
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=environment)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.split() == ["404", "404", "200", "False"]
    assert "the dashboard (/ui) is off: jinja2 is not installed (pip install 'phronesis[ui]')" in ran.stderr
    assert "MCP over HTTP (/mcp) is off: mcp is not installed (pip install 'phronesis[mcp]')" in ran.stderr
