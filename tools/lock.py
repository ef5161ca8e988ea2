"""Write ``requirements.lock``: the exact versions of everything ``phronesis[all]`` installs, read
from the environment the test suite passed in.

Why: ``pyproject.toml`` says which versions phronesis *can* run with (lower bounds, each with its
reason), as a library should; an application deployed from this repository wants the versions
it was tested with. ``make install`` installs with ``-c requirements.lock``, so a clean clone (and
CI) gets the tested set, and ``pip install -r requirements.lock`` reproduces it elsewhere.

    python -m tools.lock            # rewrite requirements.lock from this environment
    python -m tools.lock --check    # exit 1 if this environment differs from the lock
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.written import write_or_check

LOCK = Path(__file__).parents[1] / "requirements.lock"
HEADER = "# phronesis[all]'s tested versions: written by tools/lock.py from the environment make test passed in\n"


def closure(root: str, extras: set[str]) -> dict[str, str]:
    """Every distribution ``root[extras]`` needs here, name → installed version."""
    found: dict[str, str] = {}
    todo = [(root, extras)]
    while todo:
        name, wanted = todo.pop()
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # an optional dependency this platform's markers skip
        key = canonicalize_name(dist.metadata["Name"])
        if key in found and not wanted:
            continue
        if key != canonicalize_name(root):
            found[key] = dist.version
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker is not None and not any(
                requirement.marker.evaluate({"extra": extra}) for extra in (wanted or {""})
            ):
                continue
            if requirement.name == root:  # phronesis[all] names its own extras
                todo.append((root, set(requirement.extras)))
                continue
            if canonicalize_name(requirement.name) not in found or requirement.extras:
                todo.append((requirement.name, set(requirement.extras)))
    return found


def written() -> str:
    pins = closure("phronesis", {"all"})
    return HEADER + "".join(f"{name}=={version}\n" for name, version in sorted(pins.items()))


def main() -> int:
    return write_or_check(LOCK, written, command="python -m tools.lock")


if __name__ == "__main__":
    sys.exit(main())
