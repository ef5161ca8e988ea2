"""The CLI: commands work, user errors are one line and exit code 2, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from phronesis.cli.base import app
from phronesis.storage.migrate import head_revision
from tests.conftest import MainRunner
from tests.processes import console


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
    piped = cli.invoke(app, ["heuristics", "import", "--tenant", "third"], input=out.read_text())
    assert piped.exit_code == 0 and "imported 1" in piped.output  # `import < pack.jsonl`, as the README says
    same = cli.invoke(app, ["heuristics", "import", str(out)])  # back into the tenant it came from
    assert same.exit_code == 2 and "already exist(s): import with --upsert" in same.output
    upserted = cli.invoke(app, ["heuristics", "import", str(out), "--upsert"])
    assert upserted.exit_code == 0 and "imported 1" in upserted.output, upserted.output


def test_a_list_cut_short_by_its_limit_says_so(cli: CliRunner) -> None:
    for n in range(3):
        cli.invoke(app, ["heuristics", "add", "--condition", f"situation {n}", "--action", "act"])
    cut = cli.invoke(app, ["heuristics", "list", "--limit", "2"])
    assert cut.exit_code == 0 and len(cut.stdout.splitlines()) == 2
    assert "the first 2 of 3 shown: raise --limit" in cut.stderr
    whole = cli.invoke(app, ["heuristics", "list", "--limit", "3"])
    assert len(whole.stdout.splitlines()) == 3 and "shown" not in whole.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["heuristics", "show", "missing"], "heuristic 'missing' not found"),
        (["heuristics", "add", "--condition", "", "--action", "x"], "--condition"),
        (["heuristics", "add", "--condition", "c", "--action", "a", "--confidence", "2"], "--confidence"),
        (["heuristics", "import", "/nonexistent.jsonl"], "cannot read"),
        (["heuristics", "list", "--origin", "alien"], "--origin"),
        # a field the engine refuses is named as the option the user typed, not as the API's field
        (["feedback", "abc", "--user-score", "7"], "error: --user-score: Input should be less than or equal to 3"),
        (["route", "hi", "--session", "s1", "--router", "fancy"], "error: --router: Input should be 'local'"),
        # the trial: "(input): give exactly one of rating, user_score or dev_score"
        (["feedback", "abc"], "error: give one of --positive, --negative, --user-score or --dev-score"),
        (["feedback", "abc", "--positive", "--user-score", "3"], "error: --positive, --user-score: give one of them"),
        (["decide", "hello", "--threat", "3"], "error: --threat: threat must be in [0, 1], not 3\n"),  # not salience
        # the trial: "Invalid value for 'name': Value error, …" and all 24 names; "not 2.0" for a typed 2
        (["settings", "set", "nope.x", "1"], "error: name: 'nope.x' is not a tunable setting (phronesis settings list"),
        (["settings", "set", "routing.low_threshold", "2"], "routing.low_threshold takes a value from 0 to 1, not 2\n"),
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
    assert cli.invoke(app, ["heuristics", "list"]).output == "no heuristics\n"  # issue 52: said, not blank
    added = ["heuristics", "add", "--condition", "it rains", "--action", "take an umbrella", "--id", "rain"]
    assert cli.invoke(app, added).exit_code == 0
    twice = cli.invoke(app, ["heuristics", "add", "--condition", "It rains", "--action", "stay in", "--id", "rain-2"])
    assert twice.exit_code == 0 and twice.stdout == "rain-2\n"
    assert twice.stderr.startswith("warning: a heuristic with this condition already exists in domain '': rain ")
    assert cli.invoke(app, ["heuristics", "history", "rain"]).output == "no confidence changes yet for rain\n"


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


def _console(tmp_path: Path, *args: str, **variables: str) -> subprocess.CompletedProcess[str]:
    """The installed console entry point with this test's data dir and ``variables``."""
    return console({**os.environ, "PHRONESIS_DATA_DIR": str(tmp_path), **variables}, *args)


@pytest.mark.process
def test_the_installed_command_reports_a_bad_setting_and_a_mistake_in_one_line(tmp_path: Path) -> None:
    """The parametrized message tests below run ``main()`` in this process (issue 45: a process
    each took 1-2 s); this one runs the installed command, to show they see what a user sees."""
    done = _console(tmp_path, "config", "show", EXECUTIVE_HEURISTIC_THRESHOLD="7")
    assert (done.returncode, done.stderr.strip().splitlines()) == (
        2,
        ["error: invalid configuration: EXECUTIVE_HEURISTIC_THRESHOLD: Input should be less than or equal to 1"],
    )
    done = _console(tmp_path, "admission", "nope")
    assert (done.returncode, done.stderr.strip().splitlines()) == (
        2,
        ["error: No such command 'nope'. (see phronesis admission --help)"],
    )


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        (
            {"EXECUTIVE_HEURISTIC_THRESHOLD": "7"},
            "error: invalid configuration: EXECUTIVE_HEURISTIC_THRESHOLD: Input should be less than or equal to 1",
        ),
        (
            {"PHRONESIS_API__KEYS": "key1:tenant"},
            "error: invalid configuration: PHRONESIS_API__KEYS: expected a JSON object, "
            'e.g. {"key": "value"}; got \'key1:tenant\' (Expecting value at column 1)',
        ),
        (
            {"PHRONESIS_EXECUTIVE__EXPERIMENT_ARMS": '{"a": '},
            "error: invalid configuration: PHRONESIS_EXECUTIVE__EXPERIMENT_ARMS: expected a JSON object, "
            'e.g. {"key": "value"}; got \'{"a": \' (Expecting value at column 7)',
        ),
        (
            {"PHRONESIS_EXECUTIVE__EXPERIMENT_ARMS": '{"a": "half"}'},
            "error: invalid configuration: PHRONESIS_EXECUTIVE__EXPERIMENT_ARMS: "
            "Input should be a valid number, unable to parse string as a number",
        ),
        (
            {"PHRONESIS_LLM__SPEC": "bogus"},
            "error: PHRONESIS_LLM__SPEC='bogus': unknown provider 'bogus'; "
            "expected one of anthropic, ollama, openai, openai-compatible",
        ),
        (
            {"PHRONESIS_EXECUTIVE__DECISION_STRATEGY": "yolo"},
            "error: PHRONESIS_EXECUTIVE__DECISION_STRATEGY: unknown decision strategy 'yolo'; "
            "expected one of always_llm, heuristic_first, urgency_tiered",
        ),
    ],
)
@pytest.mark.parametrize("command", [("config", "show"), ("serve", "--port", "1")])
def test_a_bad_setting_is_one_line_and_exit_2(
    main: MainRunner, variables: dict[str, str], message: str, command: tuple[str, ...]
) -> None:
    done = main(*command, **variables)
    assert done.returncode == 2
    lines = [line for line in done.stderr.strip().splitlines() if not line.startswith("warning: no API keys")]
    assert lines == [message]


def test_an_unknown_variable_is_warned_about_with_the_closest_name(main: MainRunner) -> None:
    done = main("config", "show", PHRONESIS_DATABSE__URL="sqlite+aiosqlite:///x.db", PHRONESIS_WHATEVER="1")
    assert done.returncode == 0
    assert done.stderr.strip().splitlines() == [
        "WARNING  phronesis.settings: PHRONESIS_DATABSE__URL is not a phronesis setting and is ignored; "
        "did you mean PHRONESIS_DATABASE__URL?",
        "WARNING  phronesis.settings: PHRONESIS_WHATEVER is not a phronesis setting and is ignored "
        "(see `phronesis config show`)",
    ]


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (
            ("admission", "feedback", "some-decision"),
            "error: Missing option '--correct'. (see phronesis admission feedback --help)",
        ),
        (
            ("admission", "search", "x", "-k", "0"),
            "error: Invalid value for '-k': Input should be greater than or equal to 1 "
            "(see phronesis admission search --help)",
        ),
        (("admission", "nope"), "error: No such command 'nope'. (see phronesis admission --help)"),
    ],
)
def test_a_command_line_mistake_is_one_line_and_exit_2(
    main: MainRunner, command: tuple[str, ...], message: str
) -> None:
    """Click's usage panel was five lines in a box (a fresh-clone trial): now like every user error."""
    done = main(*command)
    assert (done.returncode, done.stderr.strip().splitlines()) == (2, [message])


def test_python_dash_m_phronesis_is_the_console_entry_point(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import runpy

    monkeypatch.setattr("sys.argv", ["phronesis", "--version"])
    with pytest.raises(SystemExit) as exited:
        runpy.run_module("phronesis", run_name="__main__")
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("phronesis ")


def test_observe_says_a_soft_outcome_is_soft(cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 52: under ``calibrated`` an ignore is weighed both ways; observe called it "negative"."""
    monkeypatch.setenv("PHRONESIS_LEARNING__STRATEGY", "calibrated")
    added = ["heuristics", "add", "--condition", "it is dark", "--action", "turn on the lights", "--id", "dark"]
    assert cli.invoke(app, added).exit_code == 0
    assert cli.invoke(app, ["heuristics", "fire", "dark", "--event-id", "e1", "--source", "home"]).exit_code == 0
    observed = cli.invoke(
        app, ["observe", "the kettle boiled", "--event-id", "e2", "--source", "home", "--reply-to", "e1"]
    )
    assert observed.exit_code == 0, observed.output
    assert observed.stdout.startswith("implicit_ignored soft outcome (weighed by what it meant) on dark: updated")


def test_a_read_without_a_data_directory_creates_no_database(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 52: ``heuristics list`` with no data directory named created an empty database in the
    default place and listed nothing, as if the server's were empty."""
    monkeypatch.delenv("PHRONESIS_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    listed = cli.invoke(app, ["heuristics", "list"])
    assert listed.exit_code == 2 and listed.output.startswith("error: no database at ")
    assert "the default place" in listed.output and "PHRONESIS_DATA_DIR" in listed.output
    assert not list((tmp_path / "xdg").rglob("phronesis.db"))
