"""``phronesis admission …`` against a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
from typer.testing import CliRunner

from phronesis.cli.base import app

PAIRS = (
    "label\tid1\tid2\tsentence1\tsentence2\n"
    "1\t1\t2\tthe agent generated the schema\tthe agent generated a schema\n"
    "1\t3\t4\tread orders and wrote the file\tread the orders and wrote the file\n"
    "0\t5\t6\ttranslate the guide to french\tbook a meeting with sales\n"
    "0\t7\t8\tthe stock market fell today\tmy cat sleeps all day\n"
)


def test_admit_search_and_export(cli: CliRunner, tmp_path: Path) -> None:
    added = cli.invoke(app, ["admission", "admit", "--task", "Generate schema", "--outcome", "success", "--ref", "A"])
    assert added.exit_code == 0, added.output
    assert added.stdout.startswith("ADD")
    merged = cli.invoke(
        app, ["admission", "admit", "--task", "Generate schema", "--outcome", "success", "--ref", "B", "--json"]
    )
    assert json.loads(merged.stdout)["decision"] == "MERGE"
    again = cli.invoke(app, ["admission", "admit", "--task", "Generate schema", "--outcome", "success", "--ref", "A"])
    assert again.stdout.startswith("NOT") and "not stored" in again.stdout and "  run " not in again.stdout
    found = cli.invoke(app, ["admission", "search", "Generate schema", "--min-similarity=-1", "--json"])
    hits = json.loads(found.stdout)
    assert len(hits) == 2 and [h["similarity"] for h in hits] == sorted((h["similarity"] for h in hits), reverse=True)
    assert sum(h["run"]["canonical"] for h in hits) == 1
    output = tmp_path / "graph.graphml"
    exported = cli.invoke(app, ["admission", "export", "--format", "graphml", "-o", str(output)])
    assert exported.exit_code == 0, exported.output
    assert nx.read_graphml(output).number_of_nodes() == 2 + 1 + 2 + 3  # runs, task, references, decisions
    assert not output.with_name("graph.graphml.partial").exists()
    decisions = cli.invoke(app, ["admission", "decisions"])
    assert [json.loads(line)["decision"] for line in decisions.stdout.splitlines()] == ["NOT", "MERGE", "ADD"]


def test_a_file_of_runs_is_one_batch(cli: CliRunner, tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    run = {"task": "Generate schema", "outcome": "success"}
    runs.write_text("\n".join(json.dumps(r) for r in [run, run, {**run, "task": "Release notes"}]) + "\n")
    result = cli.invoke(app, ["admission", "admit", "--file", str(runs)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["decisions"] == {"ADD": 2, "NOT": 1, "REPLACE": 0, "MERGE": 0}


def test_user_errors_are_one_line_and_exit_2(cli: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task": "x", "outcome": "success"}\n{"task": "y"}\n')
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("label\tid1\tid2\tsentence1\tsentence2\n2\t1\t2\ta\tb\n")
    for args in (
        ["admission", "admit", "--task", "x", "--outcome", "done"],
        ["admission", "admit", "--task", "x"],
        ["admission", "admit", "--file", str(bad)],
        ["admission", "admit", "--task", "x", "--outcome", "success", "--replaces", "missing"],
        ["admission", "export", "--format", "dot"],
        ["admission", "calibrate", str(pairs)],
        ["admission", "calibrate", str(tmp_path / "missing.tsv")],
        ["admission", "delete", "no-such-run"],
        ["admission", "calibrate"],
        ["admission", "calibrate", "--from-feedback"],
        ["admission", "feedback", "no-such-decision", "--correct"],
        ["admission", "feedback", "any", "--wrong", "--expected", "keep"],
        ["admission", "feedback", "any", "--correct", "--expected", "ADD"],
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith("error:") and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "bad.jsonl:2.outcome" in cli.invoke(app, ["admission", "admit", "--file", str(bad)]).stderr


def test_calibrate_then_evaluate_pairs(cli: CliRunner, tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(PAIRS, encoding="utf-8")
    calibrated = cli.invoke(app, ["admission", "calibrate", str(pairs), "--objective", "f1"])
    assert calibrated.exit_code == 0, calibrated.output
    result = json.loads(calibrated.stdout)
    assert result["saved"] and result["f1"] == 1.0
    evaluated = json.loads(cli.invoke(app, ["admission", "evaluate-pairs", str(pairs)]).stdout)
    assert evaluated["threshold"] == result["threshold"] and evaluated["threshold_source"] == "calibrated"
    assert {"precision", "recall", "f1", "accuracy"} <= set(evaluated)
    fixed = json.loads(cli.invoke(app, ["admission", "evaluate-pairs", str(pairs), "--threshold", "1.0"]).stdout)
    assert (fixed["threshold_source"], fixed["recall"]) == ("argument", 0.0)
    shown = json.loads(cli.invoke(app, ["admission", "calibration"]).stdout)
    assert shown["calibrated"] and shown["duplicate_threshold"] == result["threshold"] and not shown["pair_judge"]
    assert json.loads(cli.invoke(app, ["admission", "calibration", "--reset"]).stdout) == {"reset": True}
    assert json.loads(cli.invoke(app, ["admission", "calibration"]).stdout) == {
        "calibrated": False,
        "duplicate_threshold": 0.95,
    }


def test_feedback_then_calibrate_from_it(cli: CliRunner) -> None:
    base = ["admission", "admit", "--task", "Generate schema", "--outcome", "success", "--json"]
    first = json.loads(cli.invoke(app, [*base, "--summary", "Read orders and wrote the schema."]).stdout)
    again = json.loads(cli.invoke(app, [*base, "--summary", "Read orders and wrote the schema."]).stdout)
    other = json.loads(cli.invoke(app, [*base, "--task", "Translate the guide", "--summary", "Translated it."]).stdout)
    assert (again["decision"], other["decision"]) == ("NOT", "ADD")
    rated = cli.invoke(app, ["admission", "feedback", again["decision_id"], "--correct"])
    assert rated.exit_code == 0, rated.output
    assert rated.stdout.strip() == f"{again['decision_id']}: NOT is correct; teaches: a duplicate of {first['run_id']}"
    only_one_kind = cli.invoke(app, ["admission", "calibrate", "--from-feedback"])
    assert only_one_kind.stderr.strip() == "error: pairs: calibration needs both duplicate and non-duplicate pairs"
    right = cli.invoke(app, ["admission", "feedback", other["decision_id"], "--correct"])
    assert right.stdout.strip().endswith(f"teaches: not a duplicate of {first['run_id']}"), right.output
    fitted = cli.invoke(app, ["admission", "calibrate", "--from-feedback", "--feedback-weight", "2"])
    assert fitted.exit_code == 0, fitted.output
    result = json.loads(fitted.stdout)
    assert (result["file_pairs"], result["feedback_pairs"], result["feedback_weight"]) == (0, 2, 2.0)
    assert result["saved"] and result["pair_judge"] is None and "fewer than 100" in result["pair_judge_note"]


def test_delete_and_purge(cli: CliRunner) -> None:
    base = ["admission", "admit", "--task", "Generate schema", "--json"]
    failed = json.loads(cli.invoke(app, [*base, "--outcome", "failure"]).stdout)
    better = json.loads(cli.invoke(app, [*base, "--outcome", "success"]).stdout)
    assert better["decision"] == "REPLACE"
    deleted = cli.invoke(app, ["admission", "delete", better["run_id"]])
    assert (
        deleted.exit_code == 0
        and deleted.stdout.strip() == f"deleted {better['run_id']}; active again: {failed['run_id']}"
    )
    assert cli.invoke(app, ["admission", "purge"]).stdout.startswith("retention is off")
