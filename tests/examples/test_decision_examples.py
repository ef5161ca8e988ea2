"""The examples of the five decision points (``examples/<point>.py``), each run as a user runs it: a
process of its own with the embedded defaults (SQLite in a data directory, the real sentence model,
no LLM), and what it prints is what the docs say it shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process, pytest.mark.model]  # a Python process that loads the real model

EXAMPLES = Path(__file__).parents[2] / "examples"


def _run(name: str, data_dir: Path) -> list[str]:
    """``python examples/<name>.py`` with its data in ``data_dir``: the lines it printed."""
    env = {**os.environ, "PHRONESIS_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")], env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr
    assert (data_dir / "phronesis.db").is_file()  # in the data directory it was given
    return done.stdout.splitlines()


def test_executive_fires_confident_heuristics_and_rejects_the_rest_with_the_reason(tmp_path: Path) -> None:
    printed = _run("executive", tmp_path)
    decisions = [line for line in printed if line.startswith("  -> ")]
    assert decisions[0].startswith("  -> heuristic: raise the thermostat by two degrees (a heuristic of confidence 0.8")
    assert decisions[1].startswith("  -> heuristic: raise the thermostat by two degrees")  # its example
    assert decisions[2] == "  -> rejected: llm_unavailable (no candidate in scope)"  # the opposite
    assert decisions[3] == "  -> rejected: llm_unavailable (best candidate at confidence 0.55)"
    assert "threshold 0.43, strategy urgency_tiered" in decisions[4]
    assert re.fullmatch(r"rated positive: confidence 0\.800 -> 0\.8\d\d", printed[-1]), printed[-1]


def test_learning_says_which_lesson_each_outcome_taught(tmp_path: Path) -> None:
    printed = _run("learning", tmp_path)
    assert "'thanks, that worked' read as thanks: True" in printed
    assert "'that didn't help, still cold' read as a complaint: True" in printed
    steps = [line for line in printed if ", lesson " in line]
    assert [line.split(":")[0] for line in steps] == [
        "user_implicit",
        "user_explicit",
        "implicit_complaint",
        "user_explicit",
    ]
    assert [line.split(", lesson ")[1].split()[0] for line in steps] == [
        "confirmed",
        "confirmed",
        "wrong_action",
        "wrong_match",
    ]
    old, new = re.findall(r"(\d\.\d{3}) -> (\d\.\d{3})", steps[2])[0]
    assert float(new) < float(old)  # the action did not help: confidence down
    old, new = re.findall(r"(\d\.\d{3}) -> (\d\.\d{3})", steps[3])[0]
    assert old == new and "counter-example" in steps[3]  # the match was wrong: confidence kept


def test_routing_decides_each_turn_of_a_conversation(tmp_path: Path) -> None:
    printed = _run("routing", tmp_path)
    decisions = [line.split()[1] for line in printed if line.startswith("  -> ")]
    assert decisions == ["RETRIEVE", "CLARIFY", "USE_TOOL", "CLARIFY", "USE_TOOL", "ESCALATE"]
    assert "     sources: ['pricing']" in printed
    assert any(line.startswith("     call: {'calendar': {'email': 'ann@acme.io', 'time': ") for line in printed)
    assert any("sensitive topic: refund" in line for line in printed)


def test_admission_adds_drops_replaces_and_merges(tmp_path: Path) -> None:
    printed = _run("admission", tmp_path)
    assert [line.split(": ")[1].split()[0] for line in printed[:4]] == ["ADD", "NOT", "REPLACE", "MERGE"]
    assert printed[2].startswith("a better version: REPLACE (judge/better_outcome)")
    found = [line for line in printed if line.startswith("found in agent-3")]
    assert len(found) == 1 and found[0].startswith("found in agent-3: Generate schema (success")  # not the failure


def test_proactive_sends_or_keeps_silent_and_says_why(tmp_path: Path) -> None:
    printed = _run("proactive", tmp_path)
    assert printed[0] == "Mon 23:45 deadline_approaching arrives: silent, quiet_hours"
    assert printed[1].startswith("Mon 23:50 exam_venue_changed arrives: sent (")  # urgent: past quiet hours
    assert printed[2].startswith("Tue 07:45 calendar_event_approaching arrives: sent (")
    assert printed[3] == "Tue 08:00 habit_gym arrives: silent, cooldown"
    assert printed[4] == "Tue 08:20 Maya: 'thanks, on my way': schedule_info engaged, nudge ignored"
    assert printed[5].startswith("Tue 12:00 memory_recall arrives: sent (deadline_warning")
    assert "CS2103 project is due today at 18:00" in printed[5]
