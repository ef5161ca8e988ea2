"""The README's code, run as printed (it must not rot): one way to find a block and run it."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).parents[1] / "README.md"


def run_readme_python(starts_with: str, *, replace: tuple[str, str] | None = None) -> None:
    """Run the README's Python block that starts with ``starts_with`` (a regex), with ``replace``'s
    first text put as its second (a local server's address for the README's)."""
    found = re.search(r"```python\n(" + starts_with + r".*?)```", README.read_text(), re.S)
    assert found is not None, f"the README shows a block starting {starts_with!r}"
    code = found.group(1) if replace is None else found.group(1).replace(*replace)
    exec(compile(code, "README.md", "exec"), {})  # the README's own example
