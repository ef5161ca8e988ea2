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


def test_a_band_threshold_is_replayed_by_its_own_option(cli: CliRunner) -> None:
    for option, parameter, current in (
        ("--high-threshold", "high_threshold", 0.75),
        ("--low-threshold", "low_threshold", 0.5),
    ):
        result = cli.invoke(app, ["replay", "routing", option, "0.6", "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert (report["parameter"], report["current"], report["value"]) == (parameter, current, 0.6)
        assert "bands are deterministic" in report["weighting"]
    tuned = cli.invoke(app, ["tune", "routing", "--parameter", "high_threshold", "--json"])
    assert tuned.exit_code == 0 and json.loads(tuned.stdout)["parameter"] == "high_threshold", tuned.output


def test_bad_replay_input_is_one_line_and_exit_2(cli: CliRunner) -> None:
    for args in (
        ["--cascade-threshold", "1.5"],
        ["--cascade-threshold", "0.5", "--days", "0"],
        ["--high-threshold", "0.8", "--low-threshold", "0.4"],
        [],
    ):
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
    bias = cli.invoke(app, ["replay", "executive", "--personality-bias", "-0.1"])
    assert bias.exit_code == 0 and "executive personality_bias: 0 → -0.1" in bias.stdout, bias.output
    soon = cli.invoke(app, ["replay", "executive", "--soon-min", "0.5"])
    assert soon.exit_code == 0 and "executive urgency.soon_min: 0.3 → 0.5" in soon.stdout, soon.output
    tuned_bias = json.loads(cli.invoke(app, ["tune", "executive", "--parameter", "personality_bias", "--json"]).stdout)
    assert (tuned_bias["setting"], tuned_bias["rows"][0]["value"]) == ("executive.personality_bias", -0.5)
    negative = cli.invoke(app, ["settings", "set", "executive.personality_bias", "-0.05"])  # a value, not an option
    assert negative.exit_code == 0 and "executive.personality_bias = -0.05" in negative.stdout, negative.output
    assert cli.invoke(app, ["settings", "reset", "executive.personality_bias"]).exit_code == 0
    for args, message in (
        (["settings", "set", "executive.heuristic_threshold", "0.1"], "from 0.3 to 0.95"),
        (["settings", "set", "routing.low_threshold", "0.9"], "must not be above routing.high_threshold (0.75)"),
        (["replay", "routing", "--high-threshold", "0.3"], "must not be below routing.low_threshold (0.5)"),
        (["replay", "executive", "--heuristic-threshold", "0.1"], "takes a value from 0.3 to 0.95"),
        (["replay", "executive", "--personality-bias", "0.7"], "takes a value from -0.5 to 0.5"),
        (["replay", "executive"], "give one of --heuristic-threshold or --personality-bias"),
        (
            ["replay", "executive", "--heuristic-threshold", "0.6", "--personality-bias", "0"],
            "give only one of --heuristic-threshold or --personality-bias",
        ),
        (["tune", "executive", "--parameter", "low_similarity"], "executive replays heuristic_threshold or"),
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2 and message in result.output and result.output.count("\n") == 1, result.output
    for args in (["tune", "executive", "--min-coverage", "2"], ["replay", "executive", "--heuristic-threshold", "-1"]):
        result = cli.invoke(app, args)
        assert result.exit_code == 2 and result.output.startswith("error: --"), (args, result.output)


def test_replay_and_tune_admission_on_admitted_runs(cli: CliRunner) -> None:
    """Runs admitted and rated by the CLI, replayed and tuned by the CLI, the proposal applied: the
    next admission uses it (one database, several processes' worth of commands)."""
    first = cli.invoke(app, ["admission", "admit", "--task", "Generate schema", "--outcome", "success", "--json"])
    assert first.exit_code == 0, first.output
    far = cli.invoke(
        app, ["admission", "admit", "--task", "Translate the guide into French", "--outcome", "success", "--json"]
    )
    decided = json.loads(far.stdout)
    assert decided["rule"] == "below_low_similarity"
    rated = cli.invoke(app, ["admission", "feedback", decided["decision_id"], "--correct"])
    assert rated.exit_code == 0, rated.output
    replayed = cli.invoke(app, ["replay", "admission", "--low-similarity", "0.0", "--json"])
    assert replayed.exit_code == 0, replayed.output
    report = json.loads(replayed.stdout)
    # at 0.0 the rated run meets the rule judge, which ADDs another task's run: nothing changes
    assert (report["parameter"], report["decisions"], report["changed"], report["coverage"]) == (
        "low_similarity",
        1,
        0,
        1.0,
    )
    # nothing went past the pre-filter: the duplicate threshold had nothing to decide
    duplicate = json.loads(cli.invoke(app, ["replay", "admission", "--duplicate-threshold", "0.8", "--json"]).stdout)
    assert (duplicate["parameter"], duplicate["current"], duplicate["decisions"]) == ("duplicate_threshold", 0.95, 0)
    table = cli.invoke(app, ["tune", "admission"])
    assert table.exit_code == 0 and "admission low_similarity: now 0.7" in table.stdout, table.output
    applied = cli.invoke(app, ["settings", "set", "admission.low_similarity", "0.0"])
    assert applied.exit_code == 0, applied.output
    after = cli.invoke(
        app, ["admission", "admit", "--task", "Plan the offsite agenda", "--outcome", "success", "--json"]
    )
    assert (json.loads(after.stdout)["stage"], json.loads(after.stdout)["rule"]) == ("judge", "different_task")


def test_replay_and_tune_proactive_take_a_trust_level(cli: CliRunner) -> None:
    replayed = cli.invoke(app, ["replay", "proactive", "--level", "deep", "--score-threshold", "4.5"])
    assert replayed.exit_code == 0, replayed.output
    assert "proactive score_threshold.deep: 5 → 4.5" in replayed.stdout and "messages sent: 0" in replayed.stdout
    tuned = cli.invoke(app, ["tune", "proactive", "--level", "building", "--json"])
    assert tuned.exit_code == 0, tuned.output
    report = json.loads(tuned.stdout)
    assert (report["setting"], report["current"]) == ("proactive.score_threshold.building", 6.0)
    assert "most messages sent" in report["objective"]
    cap = cli.invoke(app, ["replay", "proactive", "--level", "new", "--daily-cap", "1"])
    assert cap.exit_code == 0 and "proactive daily_cap.new: 2 → 1" in cap.stdout, cap.output
    weight = cli.invoke(app, ["replay", "proactive", "--urgency-weight", "0.5"])
    assert weight.exit_code == 0 and "proactive weight.urgency: 0.25 → 0.5" in weight.stdout, weight.output
    tuned_weight = json.loads(cli.invoke(app, ["tune", "proactive", "--parameter", "weight.timing", "--json"]).stdout)
    assert (tuned_weight["setting"], tuned_weight["current"]) == ("proactive.weight.timing", 0.35)
    for args, message in (
        (["replay", "proactive", "--score-threshold", "5"], "--level: the trust level"),
        (["replay", "proactive", "--daily-cap", "2"], "--level: the trust level whose daily cap"),
        (["replay", "proactive", "--level", "new", "--daily-cap", "99"], "from 0 to 50, not 99"),
        (["replay", "proactive", "--level", "new", "--daily-cap", "2.5"], "takes a whole number, not 2.5"),
        (["replay", "proactive", "--level", "new", "--timing-weight", "0.5"], "--level goes with --score-threshold"),
        (["replay", "proactive", "--timing-weight", "1.5"], "from 0 to 1, not 1.5"),
        (["tune", "proactive", "--level", "new", "--parameter", "weight.timing"], "either --level"),
        (["replay", "proactive", "--level", "new", "--score-threshold", "11"], "from 0 to 10, not 11"),
        (["replay", "proactive", "--level", "nobody", "--score-threshold", "5"], "--level"),
        (["tune", "executive", "--level", "new"], "only proactive has trust levels"),
        (["replay", "admission", "--low-similarity", "1.2"], "--low-similarity"),
        (["replay", "admission", "--duplicate-threshold", "1.2"], "--duplicate-threshold"),
        (["replay", "admission"], "give one of --low-similarity or --duplicate-threshold"),
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2 and message in result.output, (args, result.output)


def test_the_strategy_is_replayed_tuned_and_set_by_name(cli: CliRunner) -> None:
    """``executive.strategy`` takes a strategy's name everywhere a number goes for the others."""
    replayed = cli.invoke(app, ["replay", "executive", "--strategy", "always_llm"])
    assert replayed.exit_code == 0, replayed.output
    assert "executive strategy: heuristic_first → always_llm" in replayed.stdout
    tuned = cli.invoke(app, ["tune", "executive", "--parameter", "strategy", "--json"])
    assert tuned.exit_code == 0, tuned.output
    assert json.loads(tuned.stdout)["setting"] == "executive.strategy"
    applied = cli.invoke(app, ["settings", "set", "executive.strategy", "urgency_tiered", "--note", "replayed"])
    assert applied.exit_code == 0, applied.output
    assert "executive.strategy = urgency_tiered  applied (configured heuristic_first)" in applied.stdout
    listed = cli.invoke(app, ["settings", "list"]).stdout
    assert "executive.strategy = urgency_tiered" in listed and "executive.heuristic_threshold = 0.7" in listed
    now = cli.invoke(app, ["replay", "executive", "--strategy", "heuristic_first", "--json"])
    assert json.loads(now.stdout)["current"] == "urgency_tiered", now.output
    assert cli.invoke(app, ["settings", "reset", "executive.strategy"]).exit_code == 0
    for args, message in (
        (["replay", "executive", "--strategy", "fastest"], "executive.strategy takes one of heuristic_first"),
        (["settings", "set", "executive.strategy", "fastest"], "not 'fastest'"),
        (
            ["settings", "set", "executive.heuristic_threshold", "high"],
            "value: executive.heuristic_threshold takes a number from 0.3 to 0.95, not 'high'",
        ),
        (["settings", "set", "executive.strategy", "0.5"], "executive.strategy takes one of"),
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2 and message in result.output and result.output.count("\n") == 1, result.output
