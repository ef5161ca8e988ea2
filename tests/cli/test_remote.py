"""The commands that embed text use a running server when ``PHRONESIS_URL`` names one (issue 26):
the same answer as in-process, from a CLI process that never loads a model; ``--tenant`` beside
it and an unreachable server are one line each, never a silent fallback."""

from __future__ import annotations

import json
from pathlib import Path

from tests.processes import console, phronesis_env, server


def test_decide_feedback_and_add_go_to_the_running_server(tmp_path: Path) -> None:
    served = phronesis_env(tmp_path / "server")
    with server(served) as base:
        env = phronesis_env(tmp_path / "elsewhere", PHRONESIS_URL=base)  # its own (empty) data directory
        added = console(env, "heuristics", "add", "--condition", "the kettle has boiled", "--action", "pour the tea",
                        "--confidence", "0.9")  # fmt: skip
        assert added.returncode == 0, added.stderr
        decided = console(env, "decide", "the kettle has boiled", "--json")
        assert decided.returncode == 0, decided.stderr
        decision = json.loads(decided.stdout)
        assert (decision["decision_path"], decision["matched_heuristic_id"]) == ("heuristic", added.stdout.strip())
        rated = console(env, "feedback", decision["response_id"], "--positive")
        assert rated.returncode == 0 and "heuristic" in rated.stdout, rated.stderr
        # the server's database has it all; the CLI's own data directory was never opened
        local = console(served, "heuristics", "list")
        assert "the kettle has boiled" in local.stdout
        assert not (tmp_path / "elsewhere" / "phronesis.db").exists()

        other = console(env, "decide", "the kettle has boiled", "--tenant", "acme")
        assert other.returncode == 2 and other.stderr.count("\n") == 1, other.stderr
        assert other.stderr.startswith("error: --tenant: with PHRONESIS_URL set the server decides the tenant")
        # a command that does not go to the server says it works on the database directly (a trial)
        listed = console(env, "heuristics", "list")
        assert listed.returncode == 0 and "works on the database directly" in listed.stderr
        # refused before it was sent: one line naming the field, without the URL or a model's name
        refused = console(env, "feedback", decision["response_id"], "--user-score", "7")
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert refused.stderr.startswith("error: user_score: ") and "Feedback" not in refused.stderr
    gone = console(env, "decide", "the kettle has boiled")
    assert gone.returncode == 2 and gone.stderr.startswith(f"error: {base}: ") and "Traceback" not in gone.stderr


def test_without_a_server_the_model_loads_here_and_says_so_on_stderr(tmp_path: Path) -> None:
    decided = console(phronesis_env(tmp_path), "decide", "the kettle has boiled", "--json")
    assert decided.returncode == 0, decided.stderr
    assert json.loads(decided.stdout)["decision_path"] == "rejected"  # standard output is the answer alone
