"""Free-form JSON a caller sends (attributes, metadata, context): finite numbers only.

Python's JSON reader takes ``NaN``, ``Infinity`` and ``1e400`` (read as infinity). Stored, such a
number comes back as null or cannot be written out again, so the caller's value is lost without
a word (a fresh-clone trial of issue 23). It is refused at the boundary instead, naming where.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import AfterValidator

__all__ = ["JsonObject", "finite_json"]


def _check(value: Any, where: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where or 'value'} is {value!r}: only finite numbers can be stored")
    if isinstance(value, dict):
        for key, item in value.items():
            _check(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _check(item, f"{where}[{index}]")


def finite_json(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` unchanged, if every number in it is finite; else a ValueError naming the key."""
    _check(value, "")
    return value


JsonObject = Annotated[dict[str, Any], AfterValidator(finite_json)]
"""A JSON object whose numbers are all finite."""
