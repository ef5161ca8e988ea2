"""A CLI runner on a fresh data directory with the fast hashing embedder."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    monkeypatch.setenv("PHRONESIS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PHRONESIS_EMBEDDINGS__SPEC", "hashing:384")
    return CliRunner()

