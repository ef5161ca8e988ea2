"""The OpenAPI document is read by API users (and by agents through MCP) who have never seen our
design documents: its descriptions and summaries say what a thing is, not how we got there."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# development jargon: design-doc references, history, internal names
WORDS = re.compile(r"seed 00\d|§|issue \d|\btrials?\b|fuzz|\bF-\d\d|GLADyS|before 00\d\d", re.IGNORECASE)
# case matters for these: an internal constant (``BOUNDS``, ORIGINS) or a Python settings path; an
# HTTP method (``PUT``) or an environment variable the server reads (``PHRONESIS_…``) is for users
NAMES = re.compile(r"ORIGINS|``(?!(?:GET|PUT|POST|PATCH|DELETE)``|PHRONESIS_)[A-Z][A-Z0-9_]*``|settings\.[a-z_]+\.")


def _spec() -> dict[str, Any]:
    from phronesis.embeddings.hashing import HashingEmbedder
    from phronesis.engine import Engine
    from phronesis.server import create_app
    from phronesis.settings import Settings

    settings = Settings(database={"url": "sqlite+aiosqlite:///:memory:"}, embeddings={"spec": "hashing:384"})
    return create_app(Engine(settings, embedder=HashingEmbedder(384), llm=None)).openapi()


def _texts(node: object, where: str) -> Iterator[tuple[str, str]]:
    """Every description and summary in the document, with where it is."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("description", "summary") and isinstance(value, str):
                yield f"{where}.{key}", value
            else:
                yield from _texts(value, f"{where}.{key}" if where else str(key))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            name = item.get("name") if isinstance(item, dict) else None
            yield from _texts(item, f"{where}[{name or i}]")


def _jargon(text: str) -> list[str]:
    return [m.group(0) for pattern in (WORDS, NAMES) for m in pattern.finditer(text)]


def test_the_jargon_pattern_finds_what_it_should() -> None:
    assert _jargon("Seed 000 said so (issue 20), a trial found, the fuzzer's 3e19, F-07 §2")
    assert _jargon("GLADyS ORIGINS recorded before 0009, ``BOUNDS``, settings.heuristics.default_confidence")
    assert not _jargon("A tenant's setting, between 0 and 1 (default 0.5, or PHRONESIS_HEURISTICS__X)")
    assert not _jargon("``true`` when the ``value`` is in bounds; issued at 2024-01-01")
    assert not _jargon("a ``PUT`` replaces it; unset: ``PHRONESIS_HEURISTICS__TOP_K``; the origins of a message")


def test_no_description_or_summary_speaks_development_jargon() -> None:
    texts = list(_texts(_spec(), ""))
    assert len(texts) > 500
    offenders = [f"{where}: {found} in {text!r}" for where, text in texts if (found := _jargon(text))]
    assert not offenders, f"{len(offenders)} texts with development jargon:\n" + "\n".join(offenders)
