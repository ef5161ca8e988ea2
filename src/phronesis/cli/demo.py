"""``phronesis demo``: a small heuristic pack and a walk of events through the executive.

It runs in a throw-away SQLite database (``--data-dir`` to keep it), with the configured
embedding model and LLM. With no LLM configured the low-confidence events are rejected
(the seed's no-LLM behaviour); ``--scripted-llm`` shows the LLM path offline. The walk itself
(``demo_executive``) is imported when the command runs: every other command would pay for it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from phronesis.cli.base import app


@app.command()
def demo(
    data_dir: Annotated[Path | None, typer.Option(help="Keep the demo database here (default: a temp dir).")] = None,
    scripted_llm: Annotated[bool, typer.Option("--scripted-llm", help="Use a scripted offline LLM.")] = False,
) -> None:
    """Seed a small heuristic pack and walk events through the executive, saying what was decided and why."""
    from phronesis.cli.demo_executive import run_demo

    with tempfile.TemporaryDirectory(prefix="phronesis-demo-") as scratch:
        run_demo(data_dir or Path(scratch), scripted_llm=scripted_llm)
