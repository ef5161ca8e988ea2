"""The one format of every id phronesis makes: a UUID4 in its canonical dashed form.

One format everywhere, so an agent never sees two for the same kind of thing. Ids are opaque:
the server compares them as strings and never parses them, so ids stored in plain hex (routing's
and admission's older ones) keep working as they are (a client's own ids, where the API takes them, are kept too)."""

from __future__ import annotations

import uuid

__all__ = ["new_id"]


def new_id() -> str:
    """A new id, e.g. ``'3f0c1d2e-8b7a-4c1e-9f5d-2a6b7c8d9e0f'``."""
    return str(uuid.uuid4())
