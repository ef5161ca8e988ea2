"""``--json`` on every command that prints a result (issue 26): a script reads the API's own
shape from standard output, never a sentence meant for a person."""

from __future__ import annotations

import json
from typing import Any

import typer
from typer.testing import CliRunner

from phronesis.cli import app

NO_RESULT = {"serve", "worker", "beat", "mcp", "grpc", "demo", "admission export"}
"""Commands that run a service, tell a story to a person, or write a graph format (Cypher,
GraphML) rather than print a result. Commands whose output is JSON already take ``--json`` too
(a trial's script passing it everywhere broke on them)."""


def _commands(command: Any, path: tuple[str, ...] = ()) -> dict[str, Any]:
    subs = getattr(command, "commands", None)
    if not subs:
        return {" ".join(path): command}
    out: dict[str, Any] = {}
    for name, sub in subs.items():
        out |= _commands(sub, (*path, name))
    return out


def test_every_command_that_prints_a_result_takes_json() -> None:
    commands = _commands(typer.main.get_command(app))
    assert len(commands) > 60 and set(commands) >= NO_RESULT
    missing = [
        name
        for name, command in commands.items()
        if name not in NO_RESULT and "--json" not in {o for p in command.params for o in p.opts}
    ]
    assert missing == []
    assert json.loads(CliRunner().invoke(app, ["config", "show", "--json"]).stdout)["log_level"]


def _json(cli: CliRunner, *args: str) -> Any:
    done = cli.invoke(app, [*args, "--json"])
    assert done.exit_code == 0, (args, done.output)
    return json.loads(done.stdout)


def test_json_is_the_result_itself(cli: CliRunner) -> None:
    assert _json(cli, "db", "upgrade")["revision"]
    added = _json(cli, "heuristics", "add", "--condition", "the kettle has boiled", "--action", "pour the tea",
                  "--confidence", "0.9", "--id", "kettle")  # fmt: skip
    assert (added["id"], added["confidence"]) == ("kettle", 0.9)
    listed = _json(cli, "heuristics", "list")  # the API's page
    assert ([h["id"] for h in listed["items"]], listed["total"], listed["offset"]) == (["kettle"], 1, 0)
    fire = _json(cli, "heuristics", "fire", "kettle", "--event-id", "ev-1")
    assert fire["heuristic_id"] == "kettle"
    assert _json(cli, "observe", "the tea is poured", "--event-id", "ev-2")["event_id"] == "ev-2"
    rated = _json(cli, "feedback", fire["id"], "--positive")
    assert rated["heuristic_id"] == "kettle"
    assert _json(cli, "heuristics", "history", "kettle")["total"] >= 1
    assert _json(cli, "learning", "sweep") == {"applied": 0}
    assert _json(cli, "settings", "set", "executive.strategy", "urgency_tiered")["value"] == "urgency_tiered"
    assert _json(cli, "settings", "reset", "executive.strategy")["value"] == "heuristic_first"
    assert _json(cli, "proactive", "users", "put", "ana")["id"] == "ana"
    assert _json(cli, "proactive", "users", "mute", "ana", "--minutes", "30")["muted_until"]
    assert _json(cli, "proactive", "pause", "--reason", "launch day")["paused"] is True
    assert _json(cli, "proactive", "resume")["paused"] is False
    assert _json(cli, "admission", "purge", "--older-than-days", "1") == {"purged": 0}
    assert _json(cli, "heuristics", "delete", "kettle")["id"] == "kettle"
