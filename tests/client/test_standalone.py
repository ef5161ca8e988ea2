"""The client stands alone: its models are the server's OpenAPI document's (generated, and checked
here against a server of this version), and importing it loads none of the server's dependencies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
pytestmark = pytest.mark.process  # each test runs a fresh interpreter
SERVER_ONLY = ("sqlalchemy", "numpy", "fastapi", "uvicorn", "faiss", "mcp", "jinja2", "icalendar", "alembic")


@pytest.mark.parametrize(
    "tool",
    [
        "generate_client_models",  # the models are the server's OpenAPI document's
        "generate_sync_client",  # the blocking client is the asyncio one's twin
    ],
)
def test_the_generated_client_is_current(tool: str) -> None:
    checked = subprocess.run(
        [sys.executable, "-m", f"tools.{tool}", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_importing_the_client_loads_none_of_the_servers_dependencies() -> None:
    code = (
        "import sys, phronesis.client\n"
        "from phronesis.client import Client\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))\n"
        "print(sorted(m for m in sys.modules if m.startswith('phronesis')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    roots, ours = (eval(line) for line in loaded.stdout.splitlines())  # two printed lists
    assert not set(roots) & set(SERVER_ONLY), set(roots) & set(SERVER_ONLY)
    shared = {"phronesis", "phronesis.exceptions", "phronesis.backoff"}  # no imports beyond pydantic's
    assert all(m in shared or m.startswith("phronesis.client") for m in ours), ours


def test_a_page_and_a_setting_name_read_as_the_servers() -> None:
    from typing import get_args

    from phronesis.client import models
    from phronesis.tenant_settings import SettingName

    assert get_args(models.SettingName) == get_args(SettingName)
    page = models.HeuristicPage.model_validate({"items": [], "limit": 10, "offset": 0, "total": 0})
    assert page.total == 0 and page.items == []
