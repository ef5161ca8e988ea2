"""Reading values back from decision records as either dialect returns them: a JSON column's
path may come back as text (SQLite) or parsed (PostgreSQL), a boolean as true, 1 or 'true'."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["as_dict", "as_json", "flag"]


def as_json(value: Any) -> Any:
    """A recorded JSON value, parsed where the driver returned it as text."""
    return json.loads(value) if isinstance(value, str) else value


def as_dict(value: Any) -> dict[str, Any]:
    parsed = as_json(value)
    return parsed if isinstance(parsed, dict) else {}


def flag(value: Any, *, absent: bool | None = None) -> bool | None:
    """A recorded boolean; ``absent`` where it was not recorded."""
    return absent if value is None else value in (True, 1, "true", "1")
