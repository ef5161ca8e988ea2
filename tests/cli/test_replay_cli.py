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
    assert report["replayed_success"]["rate"] is None and "not estimable" in report["ips"]
    table = cli.invoke(app, ["replay", "routing", "--cascade-threshold", "0.6"])
    assert "cascade_threshold: 0.75 → 0.6" in table.stdout and "success replayed: –" in table.stdout


def test_bad_replay_input_is_one_line_and_exit_2(cli: CliRunner) -> None:
    for args in (["--cascade-threshold", "1.5"], ["--cascade-threshold", "0.5", "--days", "0"]):
        result = cli.invoke(app, ["replay", "routing", *args])
        assert result.exit_code == 2 and result.output.startswith("error: ") and result.output.count("\n") == 1, (
            args,
            result.output,
        )
