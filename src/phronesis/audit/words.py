"""The few ways every decision point's explanation says things (``phronesis.explanations``): a text
quoted and cut to a line, a score as two decimals, a count with its noun."""

from __future__ import annotations

from typing import Any

__all__ = ["count", "quoted", "score"]

LINE = 60
"""A quoted text is cut to this many characters: an explanation is one line of a list."""


def quoted(text: Any, limit: int = LINE) -> str:
    """``text`` in quotes, on one line, cut with an ellipsis past ``limit`` characters."""
    said = " ".join(str(text or "").split())
    return f"'{said if len(said) <= limit else said[: limit - 1].rstrip() + '…'}'"


def score(value: Any) -> str:
    """A 0–1 number as two decimals; "?" where the record has none."""
    return f"{float(value):.2f}" if isinstance(value, int | float) else "?"


def count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
