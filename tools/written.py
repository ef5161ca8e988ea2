"""One way a tool writes a generated file, or checks (``--check``) that the committed one is what
it would write now: the tests run the checks, so a generated file cannot go stale unseen."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["write_or_check"]


def write_or_check(target: Path, render: Callable[[], str], *, command: str, argv: Sequence[str] | None = None) -> int:
    """Write ``render()`` to ``target``, or with ``--check`` exit 1 (saying to run ``command``) when
    ``target`` differs from it; ``--output`` writes elsewhere."""
    parser = argparse.ArgumentParser(description=f"write {target.name}, or check it is current")
    parser.add_argument("--check", action="store_true", help="fail if the file is not what it would write")
    parser.add_argument("--output", type=Path, default=target, help="where to write it")
    arguments = parser.parse_args(argv)
    text = render()
    if arguments.check:
        current = arguments.output.read_text() if arguments.output.exists() else ""
        if current != text:
            print(f"{arguments.output} is not current: run {command}", file=sys.stderr)
            return 1
        return 0
    arguments.output.parent.mkdir(parents=True, exist_ok=True)
    arguments.output.write_text(text)
    print(f"wrote {arguments.output}")
    return 0
