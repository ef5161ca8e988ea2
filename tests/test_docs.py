"""The documentation is tested like code: every Python block runs, every command it shows exists,
the generated reference pages are current, the README stays short, and the site builds.

A Python block that needs only the library runs here, in this process, in a temporary data
directory with the embedded SQLite default (and the hashing embedder: the fast set loads no
model); a block that needs a server is named in ``tests/doc_blocks.RUN_ELSEWHERE`` with the test
that runs it."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import importlib.util
import inspect
import io
import re
from pathlib import Path
from types import ModuleType

import pytest
import typer

from phronesis.cli import app
from tests.conftest import MainRunner
from tests.doc_blocks import PAGES, ROOT, RUN_ELSEWHERE, DocBlock, code_blocks

README_MAX_LINES = 200


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _registered(page: str, code: str) -> list[DocBlock]:
    return [block for block in RUN_ELSEWHERE if block.page == page and re.match(block.starts_with, code)]


BLOCKS = [(_name(page), code) for page in PAGES for code in code_blocks(page, ("python",))]
STANDALONE = [(page, code) for page, code in BLOCKS if not _registered(page, code)]


def test_every_python_block_is_run_by_one_test() -> None:
    """Each block is the one block of its page its registration finds, or it runs below; each
    registration names a test that exists and finds its block."""
    for page, code in BLOCKS:
        assert len(_registered(page, code)) <= 1, f"{page}: a block two registrations find:\n{code[:200]}"
    for block, test in RUN_ELSEWHERE.items():
        found = [code for page, code in BLOCKS if page == block.page and re.match(block.starts_with, code)]
        assert len(found) == 1, f"{block.page} has {len(found)} blocks starting {block.starts_with!r}, not one"
        assert (ROOT / test).is_file(), f"{block} is run by {test}, which does not exist"
    assert STANDALONE, "no block runs here: the collection below found nothing"


def _expected_prints(code: str) -> list[str]:
    """What the block says its ``print(...)`` lines print: the comment after each, in order."""
    return [m[1].strip() for m in re.finditer(r"^\s*print\(.*\)\s*#\s*(.+)$", code, re.M)]


@pytest.mark.parametrize(("page", "code"), STANDALONE, ids=[f"{page}:{c.splitlines()[0]}" for page, c in STANDALONE])
def test_a_standalone_block_runs_as_printed(
    page: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process, in a fresh data directory, on the embedded SQLite default: top-level
    ``await`` and ``async with`` run as in ``python -m asyncio``. What it prints is what its
    comments say."""
    monkeypatch.setenv("PHRONESIS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PHRONESIS_EMBEDDINGS__SPEC", "hashing:384")  # the fast set loads no model
    compiled = compile(code, page, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        result = eval(compiled, {"__name__": "__doc_block__"})  # the page's own code
        if inspect.iscoroutine(result):
            asyncio.run(result)
    lines = printed.getvalue().splitlines()
    for expected, line in zip(_expected_prints(code), lines, strict=False):
        pattern = ".*".join(re.escape(part) for part in expected.split("…"))
        assert re.fullmatch(pattern, line), f"{page}: printed {line!r} where its comment says {expected!r}"


SHELL = ("bash", "sh", "console", "shell")
COMMAND = re.compile(r"(?:^|[;&|(]\s*|\$\(\s*)(?:\.venv/bin/)?phronesis(?=[ \t])(?P<words>[^\n;&|#]*)", re.M)
INLINE = re.compile(r"`(?:\.venv/bin/)?phronesis (?P<words>[^`]*)`")
WORD = re.compile(r"[a-z][a-z0-9_-]*")


def _commands() -> dict[str, set[str]]:
    """Each ``phronesis …`` command of a shell block (and of a code span in the text), as the words
    that follow it, with the pages that show it."""
    found: dict[str, set[str]] = {}
    for page in PAGES:
        commands = [match for code in code_blocks(page, SHELL) for match in COMMAND.finditer(code.replace("\\\n", " "))]
        for command in [*commands, *INLINE.finditer(page.read_text())]:
            words = []
            for word in command["words"].split():
                if not WORD.fullmatch(word):
                    break
                words.append(word)
            found.setdefault(" ".join(words), set()).add(_name(page))
    return found


def _command_path(words: list[str]) -> list[str]:
    """The subcommands ``words`` name (the arguments after a command's name are not): fails on a
    word where a group expects one of its subcommands."""
    command = typer.main.get_command(app)
    path: list[str] = []
    for word in words:
        if not isinstance(command, typer.core.TyperGroup):  # a command: the rest are its arguments
            break
        sub = command.get_command(typer.Context(command), word)
        assert sub is not None, f"`phronesis {' '.join([*path, word])}`: {word!r} is not a subcommand of {path}"
        command = sub
        path.append(word)
    return path


def test_shell_blocks_name_real_commands(main: MainRunner) -> None:
    """Every ``phronesis …`` in a shell block names commands that exist: each distinct one's
    ``--help`` succeeds (through the console entry point, in this process)."""
    commands = _commands()
    assert len(commands) > 20, sorted(commands)
    paths = {" ".join(_command_path(words.split())): pages for words, pages in commands.items()}
    for path, pages in sorted(paths.items()):
        done = main(*path.split(), "--help")
        assert done.returncode == 0, f"`phronesis {path} --help` (shown in {sorted(pages)}) failed: {done.stderr}"


def test_the_readme_is_short() -> None:
    """The README says what phronesis is, how to run and test it, and where the docs are; the
    manual is the site."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines (at most {README_MAX_LINES})"


def test_the_readme_links_nothing_outside_the_repository() -> None:
    readme = (ROOT / "README.md").read_text()
    for target in re.findall(r"\]\(([^)\s]+)\)", readme):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a URL, or a heading of its own
        path = (ROOT / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), f"README.md links {target}, not a file of the repository"


def _generator(name: str) -> ModuleType:
    return importlib.import_module(f"tools.{name}")


@pytest.mark.parametrize("name", ["settings_reference", "api_reference"])
def test_the_generated_reference_is_current(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The reference pages are generated from the code (``make docs``): what is committed is what
    the generator writes now."""
    monkeypatch.setenv("PHRONESIS_DATA_DIR", str(tmp_path))  # the generator sets these; put back after
    monkeypatch.setenv("PHRONESIS_EMBEDDINGS__SPEC", "hashing:384")
    generator = _generator(name)
    assert generator.PAGE.read_text() == generator.render(), f"{generator.PAGE} is not current: run make docs"


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """``mkdocs build --strict``: a broken link, a missing page, anchor or example fails it."""
    pytest.importorskip("mkdocs")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"), strict=True, site_dir=str(tmp_path / "site"))
    build(config)
    assert (tmp_path / "site" / "reference" / "settings" / "index.html").is_file()
