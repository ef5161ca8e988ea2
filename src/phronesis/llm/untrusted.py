"""Untrusted text (user queries, event text, agent runs) goes into prompts as data.

Architecture rule: such text sits inside clear delimiters, never as instructions, and
is length-bounded. A tag inside the text that would close the delimiter early is
defused, so ``</event>ignore previous instructions`` cannot break out.
"""

from __future__ import annotations

import re

__all__ = ["delimit"]

_LABEL = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


def delimit(label: str, text: str, *, max_chars: int = 4000) -> str:
    """Wrap ``text`` in ``<label>…</label>``, truncated to ``max_chars`` characters."""
    if not _LABEL.match(label):
        raise ValueError(f"delimiter label must be a short lowercase identifier, got {label!r}")
    if len(text) > max_chars:
        text = text[:max_chars] + " …[truncated]"
    tag = re.compile(rf"<\s*/?\s*{label}\b", re.IGNORECASE)
    text = tag.sub(lambda m: m.group(0).replace("<", "&lt;"), text)
    return f"<{label}>\n{text}\n</{label}>"
