"""Free-form JSON a caller sends (attributes, metadata, context, a signal's data): bounded, storable.

Refused at the boundary, naming where, rather than stored and failing later:

- ``NaN``, ``Infinity`` and ``1e400``: Python's JSON reader takes them, and stored they come back as
  null or cannot be written out again;
- nesting deeper than ``MAX_DEPTH``: stored, a signal's ``data`` nested 300–500 deep makes every
  page that holds it answer 500;
- the NUL character, in a key or a string: PostgreSQL cannot store it in text (500 there);
- more than ``MAX_BYTES`` as JSON: a run's ``attributes`` of 9 MB would be stored and returned whole.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any

from pydantic import AfterValidator

__all__ = ["MAX_BYTES", "MAX_DEPTH", "JsonObject", "finite_json", "no_nul"]

MAX_DEPTH = 32
"""Objects and lists inside one another, at most (the object itself is depth 1)."""
MAX_BYTES = 64 * 1024
"""A free-form object's size as compact JSON, at most."""


def _where(where: str, key: object) -> str:
    return f"{where}.{key}" if where else str(key)


def _check(value: Any) -> None:
    """Every value in ``value``, breadth first without recursion (a hostile depth cannot exhaust
    the stack): finite numbers, no NUL, nesting within ``MAX_DEPTH``."""
    pending: list[tuple[Any, str, int]] = [(value, "", 1)]
    while pending:
        item, where, depth = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError(f"{where or 'value'} is {item!r}: only finite numbers can be stored")
        if isinstance(item, str):
            no_nul(item, where)
        elif isinstance(item, dict | list | tuple):
            if depth > MAX_DEPTH:
                raise ValueError(f"{where or 'value'} is nested deeper than {MAX_DEPTH} levels")
            if isinstance(item, dict):
                for key, child in item.items():
                    no_nul(str(key), _where(where, key))
                    pending.append((child, _where(where, key), depth + 1))
            else:
                pending.extend((child, f"{where}[{index}]", depth + 1) for index, child in enumerate(item))


def no_nul(text: str, where: str = "") -> str:
    """``text`` unchanged unless it holds the NUL character, which PostgreSQL cannot store in text."""
    if "\x00" in text:
        raise ValueError(f"{where + ' ' if where else ''}contains the NUL character (\\u0000), which cannot be stored")
    return text


def finite_json(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` unchanged, if it can be stored as it is; else a ValueError naming where."""
    _check(value)
    size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
    if size > MAX_BYTES:
        raise ValueError(f"is {size} bytes as JSON; at most {MAX_BYTES}")
    return value


JsonObject = Annotated[dict[str, Any], AfterValidator(finite_json)]
"""A JSON object that can be stored: finite numbers, no NUL, bounded depth and size."""
