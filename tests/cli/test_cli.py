"""The CLI: commands work, user errors are one line and exit code 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from phronesis.cli.app import app
from phronesis.storage.migrate import head_revision


def test_db_upgrade_then_add_list_show_export_import(cli: CliRunner, tmp_path: Path) -> None:
    assert f"revision {head_revision()}" in cli.invoke(app, ["db", "upgrade"]).output
    added = cli.invoke(
        app,
        [
            "heuristics",
            "add",
            "--condition",
            "door left open",
            "--action",
            "close it",
            "--domain",
            "home",
            "--confidence",
            "0.3",
            "--id",
            "door",
        ],
    )
    assert added.exit_code == 0 and added.output.strip() == "door"
    listed = cli.invoke(app, ["heuristics", "list"])
    assert "door\t0.300\thome\tdoor left open → close it" in listed.output
    shown = json.loads(cli.invoke(app, ["heuristics", "show", "door"]).output)
    assert shown["confidence"] == 0.3
    out = tmp_path / "pack.jsonl"
    assert cli.invoke(app, ["heuristics", "export", str(out)]).exit_code == 0
    imported = cli.invoke(app, ["heuristics", "import", str(out), "--tenant", "other"])
    assert imported.exit_code == 0 and "imported 1" in imported.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["heuristics", "show", "missing"], "heuristic 'missing' not found"),
        (["heuristics", "add", "--condition", "", "--action", "x"], "--condition"),
        (["heuristics", "add", "--condition", "c", "--action", "a", "--confidence", "2"], "--confidence"),
        (["heuristics", "import", "/nonexistent.jsonl"], "cannot read"),
        (["heuristics", "list", "--origin", "alien"], "--origin"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(cli: CliRunner, args: list[str], message: str) -> None:
    result = cli.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_bad_import_names_the_line_and_writes_nothing(cli: CliRunner, tmp_path: Path) -> None:
    pack = tmp_path / "bad.jsonl"
    pack.write_text('{"condition_text": "a", "action_text": "b"}\n{"condition_text": 3}\n')
    result = cli.invoke(app, ["heuristics", "import", str(pack)])
    assert result.exit_code == 2 and "line 2" in result.output
    assert cli.invoke(app, ["heuristics", "list"]).output == ""


def test_config_show_masks_secrets_and_bad_config_is_one_line(cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PHRONESIS_API__KEYS", '{"sk-supersecret": "acme"}')
    shown = cli.invoke(app, ["config", "show"])
    assert shown.exit_code == 0 and "sk-supersecret" not in shown.output
    assert json.loads(shown.output)["executive"]["heuristic_threshold"] == 0.7
    monkeypatch.setenv("EXECUTIVE_HEURISTIC_THRESHOLD", "7")
    from phronesis.exceptions import ConfigurationError

    result = cli.invoke(app, ["config", "show"])
    assert isinstance(result.exception, ConfigurationError)  # main() prints it as one line


def test_serve_refuses_dev_mode_on_a_public_address(cli: CliRunner) -> None:
    result = cli.invoke(app, ["serve", "--dev", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "loopback" in result.output


def test_the_installed_command_reports_bad_config_in_one_line(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "EXECUTIVE_HEURISTIC_THRESHOLD": "7", "PHRONESIS_DATA_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "phronesis", "config", "show"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: invalid configuration: EXECUTIVE_HEURISTIC_THRESHOLD: Input should be less than or equal to 1"
    ]
