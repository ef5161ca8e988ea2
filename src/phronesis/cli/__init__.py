"""The ``phronesis`` command line: ``base`` holds the root app and its groups; each module below adds
its group's commands to them when imported (Typer's decorators), so importing this package builds
the whole command line."""

from phronesis.cli import (
    admission,
    decisions,
    demo,
    executive,
    gladys,
    heuristics,
    learning,
    mcp,
    proactive,
    replay,
    routing,
    settings,
)
from phronesis.cli.base import app, main

__all__ = ["app", "main"]

COMMANDS = (
    admission,
    decisions,
    demo,
    executive,
    gladys,
    heuristics,
    learning,
    mcp,
    proactive,
    replay,
    routing,
    settings,
)
"""The modules whose import registered their commands on ``app``."""
