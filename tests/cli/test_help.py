"""Help texts in plain words (issue 26): no design-document jargon ("seed 002"), no reStructuredText
left in them (``name``): what ``--help`` prints is for the people who run phronesis."""

from __future__ import annotations

import re
from typing import Any

import typer

from phronesis.cli import app


def _texts(command: Any, path: str) -> list[tuple[str, str]]:
    out = [(path, command.help or "")]
    out += [(f"{path} --{p.name}", getattr(p, "help", None) or "") for p in getattr(command, "params", [])]
    for name, sub in getattr(command, "commands", {}).items():
        out += _texts(sub, f"{path} {name}")
    return out


def test_no_help_text_speaks_in_seed_numbers_or_markup() -> None:
    texts = _texts(typer.main.get_command(app), "phronesis")
    assert len(texts) > 150
    # nor our own development notes ("a trial found …", "issue 26")
    pattern = r"seed 0\d\d|``|:[a-z]+:`|\ba trial\b|\bissue \d+"
    jargon = [(where, m.group(0)) for where, t in texts for m in re.finditer(pattern, t)]
    assert jargon == []
