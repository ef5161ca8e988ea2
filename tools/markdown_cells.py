"""Text as the cells of a Markdown table, for the generated reference pages (the settings', the API's)."""

from __future__ import annotations

import re

__all__ = ["code", "escape", "markdown"]


def escape(text: str) -> str:
    """Plain text for a table cell: Markdown's special characters escaped (a pipe would end the cell)."""
    for raw, escaped in (("\\", "\\\\"), ("<", "&lt;"), ("|", "\\|"), ("*", "\\*"), ("_", "\\_")):
        text = text.replace(raw, escaped)
    return text


def markdown(text: str) -> str:
    """A docstring or an OpenAPI text (RST-flavoured, several lines) as one table cell of Markdown:
    code spans kept. A code span holding a pipe becomes plain text: GitHub ends a table cell at a
    pipe even inside one."""
    parts = re.sub(r"\s+", " ", text.replace("``", "`")).strip().split("`")
    return "".join(
        escape(part) if index % 2 == 0 or "|" in part else f"`{part}`" for index, part in enumerate(parts)
    )


def code(text: str) -> str:
    """``text`` as a code span, or as escaped plain text where a pipe would end a table cell."""
    if "|" in text:
        return escape(text)
    return f"`{text}`" if "`" not in text else f"`` {text} ``"
