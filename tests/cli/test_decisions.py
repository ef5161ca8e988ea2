"""``phronesis decisions``: the records, each with what it was about and why, in words (issue 52)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from phronesis.cli import app


def test_a_decision_is_listed_and_shown_in_words(cli: CliRunner) -> None:
    admitted = cli.invoke(
        app, ["admission", "admit", "--task", "Generate the invoice schema", "--outcome", "success", "--json"]
    )
    assert admitted.exit_code == 0, admitted.output
    decision_id = json.loads(admitted.stdout)["decision_id"]

    listed = cli.invoke(app, ["decisions", "list"])
    assert listed.exit_code == 0, listed.output
    said = "ADD 'Generate the invoice schema': no similar run in memory"
    assert f"{decision_id}  admission  'Generate the invoice schema'\n    {said}" in listed.stdout

    shown = cli.invoke(app, ["decisions", "show", decision_id])
    assert shown.exit_code == 0 and f"why:     {said}" in shown.stdout
    record = json.loads(cli.invoke(app, ["decisions", "show", decision_id, "--json"]).stdout)
    assert record["explanation"] == said and record["kind"] == "admission"


def test_nothing_to_list_says_so_and_a_bad_kind_is_one_line(cli: CliRunner) -> None:
    empty = cli.invoke(app, ["decisions", "list"])
    assert (empty.exit_code, empty.stdout.strip()) == (0, "no decisions")
    bad = cli.invoke(app, ["decisions", "list", "--kind", "psychic"])
    assert bad.exit_code == 2 and "--kind: must be one of executive" in bad.output
    missing = cli.invoke(app, ["decisions", "show", "no-such"])
    assert missing.exit_code != 0 and "Traceback" not in missing.output
