"""The commands that embed text use a running server when ``PHRONESIS_URL`` names one (issue 26):
the same answer as in-process, from a CLI process that never loads a model; ``--tenant`` beside
it and an unreachable server are one line each, never a silent fallback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MainRunner
from tests.processes import phronesis_env, server

pytestmark = pytest.mark.process  # a real server; the CLI's commands run in this process (issue 45)


def _variables(data_dir: Path, **more: str) -> dict[str, str]:
    """A command's environment: its data directory, the hashing embedder (the real model would fail
    this test: a command that goes to the server must not load one)."""
    return {"PHRONESIS_DATA_DIR": str(data_dir), "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384", **more}


def test_decide_feedback_and_add_go_to_the_running_server(tmp_path: Path, main: MainRunner) -> None:
    with server(phronesis_env(tmp_path / "server")) as base:
        env = _variables(tmp_path / "elsewhere", PHRONESIS_URL=base)  # its own (empty) data directory
        added = main("heuristics", "add", "--condition", "the kettle has boiled", "--action", "pour the tea",
                     "--confidence", "0.9", **env)  # fmt: skip
        assert added.returncode == 0, added.stderr
        decided = main("decide", "the kettle has boiled", "--json", **env)
        assert decided.returncode == 0, decided.stderr
        decision = json.loads(decided.stdout)
        assert (decision["decision_path"], decision["matched_heuristic_id"]) == ("heuristic", added.stdout.strip())
        rated = main("feedback", decision["response_id"], "--positive", **env)
        assert rated.returncode == 0 and "heuristic" in rated.stdout, rated.stderr
        twice = main("feedback", decision["response_id"], "--positive", **env)  # a 409, named as typed
        assert twice.returncode == 2 and twice.stderr.startswith("error: --positive/--negative: the same click twice: ")
        # the server's database has it all; the CLI's own data directory was never opened
        local = main("heuristics", "list", **_variables(tmp_path / "server"))
        assert "the kettle has boiled" in local.stdout
        assert not (tmp_path / "elsewhere" / "phronesis.db").exists()

        other = main("decide", "the kettle has boiled", "--tenant", "acme", **env)
        assert other.returncode == 2 and other.stderr.count("\n") == 1, other.stderr
        assert other.stderr.startswith("error: --tenant: with PHRONESIS_URL set the server decides the tenant")
        # a command that does not go to the server says it works on the database directly (a trial)
        listed = main("heuristics", "list", **env)
        assert listed.returncode == 0 and "works on the database directly" in listed.stderr
        assert str(tmp_path / "elsewhere" / "phronesis.db") in listed.stderr  # which one, named
        # refused before it was sent, or by the server: one line naming the option as typed (the trial
        # read "user_score:" and "urgency:" here, "--urgency:" without PHRONESIS_URL)
        refused = main("feedback", decision["response_id"], "--user-score", "7", **env)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert refused.stderr.startswith("error: --user-score: ") and "Feedback" not in refused.stderr
        urgent = main("decide", "hello", "--urgency", "5", **env)
        assert urgent.returncode == 2 and urgent.stderr.startswith("error: --urgency: "), urgent.stderr
    gone = main("decide", "the kettle has boiled", **env)
    assert gone.returncode == 2 and gone.stderr.startswith(f"error: {base}: ") and "Traceback" not in gone.stderr


def test_without_a_server_the_model_loads_here_and_says_so_on_stderr(tmp_path: Path, main: MainRunner) -> None:
    decided = main("decide", "the kettle has boiled", "--json", **_variables(tmp_path))
    assert decided.returncode == 0, decided.stderr
    assert json.loads(decided.stdout)["decision_path"] == "rejected"  # standard output is the answer alone


def test_settings_go_to_the_server_and_warn_by_its_configuration(tmp_path: Path, main: MainRunner) -> None:
    """Issue 52: the A/B check read the CLI's own environment. A server whose A/B experiment assigns
    every event's strategy refuses a tenant's own; the CLI, without one in its environment, took it."""
    arms = {"PHRONESIS_EXECUTIVE__EXPERIMENT_ARMS": '{"heuristic_first": 1, "always_llm": 1}'}
    with server(phronesis_env(tmp_path / "server", **arms)) as base:
        env = _variables(tmp_path / "elsewhere", PHRONESIS_URL=base)
        refused = main("settings", "set", "executive.strategy", "urgency_tiered", **env)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert "this server's A/B experiment assigns each event's strategy" in refused.stderr
        listed = main("settings", "list", **env)
        assert "executive.strategy = heuristic_first  configured" in listed.stdout, listed.stdout
        assert "works on the database directly" not in listed.stderr
        # on the database directly, the check is this process's configuration, and it says so
        local = main("settings", "set", "executive.strategy", "always_llm", **_variables(tmp_path / "server"))
        assert local.returncode == 0, local.stderr
        assert "by this process's configuration; set PHRONESIS_URL to ask the server" in local.stderr
    assert not (tmp_path / "elsewhere" / "phronesis.db").exists()
