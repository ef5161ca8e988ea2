"""The documentation's code, run as printed (it must not rot): find a page's block and run it.

Every ```python block of ``README.md`` and ``docs/`` runs in the suite. ``tests/test_docs.py`` runs
those that need only the library; a block that needs more (a server, an MCP client) is named in
``RUN_ELSEWHERE`` with the test that runs it, which finds it by the same ``DocBlock``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).parents[1]
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
"""Every page whose code blocks are checked."""

FENCE = re.compile(r"^```(?P<language>[\w-]*)[^\n]*\n(?P<code>.*?)^```[ \t]*$", re.S | re.M)


class DocBlock(NamedTuple):
    """A ```python block: its page (from the repository's root) and a regex its code starts with."""

    page: str
    starts_with: str


README_TOUR = DocBlock("README.md", r"from phronesis\.client import ")
GETTING_STARTED_TOUR = DocBlock("docs/getting-started.md", r"from phronesis\.client import ")
MOCK_TRANSPORT = DocBlock("docs/clients.md", r"import httpx\nfrom phronesis\.client import Client\n")
MCP_CLIENT = DocBlock("docs/clients.md", r"import asyncio, os, httpx2\n")
TOY_POINT = DocBlock("docs/internals/adding-a-decision-point.md", r"from contextlib import AbstractAsync")
TOY_POINT_RUN = DocBlock("docs/internals/adding-a-decision-point.md", r"from phronesis\.decision import decide\n")
EXAMPLES = ("executive", "learning", "routing", "admission", "proactive")
EXAMPLES_TEST = "tests/examples/test_decision_examples.py"

RUN_ELSEWHERE: dict[DocBlock, str] = {
    README_TOUR: "tests/client/test_live.py",
    GETTING_STARTED_TOUR: "tests/client/test_live.py",
    MOCK_TRANSPORT: "tests/client/test_contract.py",
    MCP_CLIENT: "tests/api/test_mcp_http.py",
    TOY_POINT: "tests/test_decision.py",
    TOY_POINT_RUN: "tests/test_decision.py",
    # a decision point's page shows its example's source (a snippet), which runs as a process
    **{DocBlock(f"docs/decisions/{name}.md", rf'--8<-- "examples/{name}\.py"'): EXAMPLES_TEST for name in EXAMPLES},
}
"""Blocks that need more than the library, and the test that runs each."""


def code_blocks(page: Path, languages: tuple[str, ...]) -> list[str]:
    """The code of each fenced block of ``page`` in one of ``languages``, in order."""
    return [found["code"] for found in FENCE.finditer(page.read_text()) if found["language"] in languages]


def doc_code(page: str, starts_with: str) -> str:
    """The code of ``page``'s one ```python block that starts with ``starts_with`` (a regex)."""
    blocks = [code for code in code_blocks(ROOT / page, ("python",)) if re.match(starts_with, code)]
    assert len(blocks) == 1, f"{page} shows {len(blocks)} Python blocks starting {starts_with!r}, not one"
    return blocks[0]


def run_doc_python(page: str, starts_with: str, *, replace: tuple[str, str] | None = None) -> None:
    """Run ``page``'s Python block that starts with ``starts_with`` (a regex), with ``replace``'s
    first text put as its second (a local server's address for the page's)."""
    code = doc_code(page, starts_with)
    if replace is not None:
        assert replace[0] in code, f"{page}'s block has no {replace[0]!r} to replace"
        code = code.replace(*replace)
    exec(compile(code, page, "exec"), {})  # the page's own example
