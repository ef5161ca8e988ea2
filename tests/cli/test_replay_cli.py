"""``phronesis replay routing`` (issue 25): a report, or one line and exit 2 for bad input."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from phronesis.cli import app


def test_replay_reports_on_the_logged_decisions(cli: CliRunner) -> None:
    result = cli.invoke(app, ["replay", "routing", "--cascade-threshold", "0.6", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["current"], report["value"], report["decisions"]) == (0.75, 0.6, 0)
    assert report["replayed_success"]["rate"] is None and "not estimable" in report["weighting"]
    table = cli.invoke(app, ["replay", "routing", "--cascade-threshold", "0.6"])
    assert "cascade_threshold: 0.75 → 0.6" in table.stdout and "success replayed: –" in table.stdout


def test_bad_replay_input_is_one_line_and_exit_2(cli: CliRunner) -> None:
    for args in (["--cascade-threshold", "1.5"], ["--cascade-threshold", "0.5", "--days", "0"]):
        result = cli.invoke(app, ["replay", "routing", *args])
        assert result.exit_code == 2 and result.output.startswith("error: ") and result.output.count("\n") == 1, (
            args,
            result.output,
        )


def test_replay_executive_and_tune_print_their_tables(cli: CliRunner) -> None:
    replayed = cli.invoke(app, ["replay", "executive", "--heuristic-threshold", "0.6"])
    assert replayed.exit_code == 0, replayed.output
    assert "executive heuristic_threshold: 0.7 → 0.6" in replayed.stdout and "exploration off" in replayed.stdout
    tuned = cli.invoke(app, ["tune", "routing", "--json"])
    assert tuned.exit_code == 0, tuned.output
    report = json.loads(tuned.stdout)
    # nothing logged: nothing to argue for another value
    assert report["proposed"] == report["current"] == 0.75 and report["rated"] == 0
    table = cli.invoke(app, ["tune", "executive"])
    assert "now 0.7; no logged decisions in the window: nothing to tune on" in table.stdout
    for args, message in (
        (["settings", "set", "executive.heuristic_threshold", "0.1"], "from 0.3 to 0.95"),
        (["replay", "executive", "--heuristic-threshold", "0.1"], "clamped to [0.3, 0.95]"),
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2 and message in result.output and result.output.count("\n") == 1, result.output
    for args in (["tune", "executive", "--min-coverage", "2"], ["replay", "executive", "--heuristic-threshold", "-1"]):
        result = cli.invoke(app, args)
        assert result.exit_code == 2 and result.output.startswith("error: --"), (args, result.output)
