"""The ``phronesis`` command's entry point: the command line needs the ``server`` extra, and an
install of the client alone (``pip install phronesis``) says so in one line rather than with an
ImportError's traceback."""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["main"]

NEEDED = ("typer", "sqlalchemy", "fastapi")
"""What the command line imports first: without them, the ``server`` extra is not installed."""


def main() -> None:
    missing = [name for name in NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        print(
            f"phronesis: the command line needs the server ({', '.join(missing)} missing): "
            "pip install 'phronesis[server]'",
            file=sys.stderr,
        )
        raise SystemExit(2)
    from phronesis.cli import main as run

    run()
