"""``phronesis decide``, ``feedback``, ``executive report|reevaluate`` and ``demo``: output and one-line errors."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from phronesis.cli.base import app

CONDITION = "the front door was left unlocked at night"


def test_decide_then_feedback_then_report(cli: CliRunner) -> None:
    added = cli.invoke(
        app, ["heuristics", "add", "--condition", CONDITION, "--action", "lock it", "--confidence", "0.9"]
    )
    assert added.exit_code == 0, added.output

    decided = cli.invoke(app, ["decide", CONDITION, "--json"])
    assert decided.exit_code == 0, decided.output
    decision = json.loads(decided.output)
    assert decision["decision_path"] == "heuristic" and decision["response_text"] == "lock it"

    rated = cli.invoke(app, ["feedback", decision["response_id"], "--positive"])
    assert rated.exit_code == 0 and rated.output.startswith("positive feedback: updated heuristic")

    again = cli.invoke(app, ["feedback", decision["response_id"], "--positive"])
    assert again.exit_code == 2 and again.output.count("\n") == 1, again.output
    assert again.output.startswith("error: --positive/--negative: the same click twice: ")  # the options typed

    report = json.loads(cli.invoke(app, ["executive", "report", "--json"]).output)["strategies"]
    assert report[0]["strategy"] == "heuristic_first" and report[0]["positive"] == 1
    # issue 52: at 80 columns the table cut its headers to "strate…"; a narrow terminal reads blocks
    narrow = cli.invoke(app, ["executive", "report"], env={"COLUMNS": "80"}).output
    assert "…" not in narrow and "heuristic_first\n  decisions" in narrow and "positive rate (95% CI)" in narrow
    wide = cli.invoke(app, ["executive", "report"], env={"COLUMNS": "200"}).output
    assert "…" not in wide and "┃ strategy" in wide


def test_decide_prints_why(cli: CliRunner) -> None:
    result = cli.invoke(app, ["decide", "nothing is known about this"])
    assert result.exit_code == 0
    assert "[rejected] did nothing: no heuristic matched, and no LLM is configured" in result.output


def test_user_errors_are_one_line(cli: CliRunner) -> None:
    for args in (
        ["decide", "   "],
        ["decide", "ok", "--urgency", "3"],
        ["feedback", "no-such-id", "--positive"],
        ["feedback", "some-id"],
        ["feedback", "some-id", "--positive", "--negative"],  # the last one won, and moved a confidence
        ["executive", "reevaluate"],
        ["executive", "report", "--since-days", "0"],
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.startswith("error: ") and result.output.count("\n") == 1, (args, result.output)


def test_demo_runs_without_an_llm(cli: CliRunner) -> None:
    result = cli.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "emergency fast path" in result.output and "no LLM is configured" in result.output
    assert "Routing (seed 002)" in result.output and "sensitive topic: refund" in result.output
    assert "Proactive (seed 004)" in result.output
    for reason in (
        "quiet_hours",
        "cooldown",
        "daily_cap",
        "SENT",
        "engaged",
        "insights to weave in: [deadline_warning]",
    ):
        assert reason in result.output, reason


def test_demo_shows_the_llm_path_with_the_scripted_llm(cli: CliRunner) -> None:
    result = cli.invoke(app, ["demo", "--scripted-llm"])
    assert result.exit_code == 0, result.output
    assert "[llm] asked the LLM" in result.output
