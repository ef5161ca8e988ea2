"""Validating JSON Lines into pydantic models: every line checked, the first bad one named.

Shared by heuristic import and routing exemplars, so both report ``<where>.<field>``
the same way and neither writes anything before the whole input has validated.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from phronesis.exceptions import InvalidInputError

__all__ = ["validated_file", "validated_lines"]

M = TypeVar("M", bound=BaseModel)


def validated_lines(
    lines: Iterable[str],
    model: type[M],
    *,
    where: Callable[[int], str],
    max_lines: int | None = None,
    limit_field: str = "body",
) -> list[M]:
    """One ``model`` per non-blank line; ``where(n)`` names line ``n`` in errors."""
    items: list[M] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if max_lines is not None and len(items) >= max_lines:
            raise InvalidInputError(limit_field, f"more than {max_lines} lines")
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(where(number), f"invalid JSON ({exc.msg})") from None
        try:
            items.append(model.model_validate(data))
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            field = ".".join(str(p) for p in first["loc"]) or "(line)"
            raise InvalidInputError(f"{where(number)}.{field}", first["msg"]) from None
    return items


def validated_file(path: Path, model: type[M], *, max_lines: int | None = None) -> list[M]:
    """``validated_lines`` over a UTF-8 file; errors name ``file:line``, an unreadable file names the path."""
    try:
        with path.open(encoding="utf-8") as handle:
            return validated_lines(
                handle, model, where=lambda n: f"{path.name}:{n}", max_lines=max_lines, limit_field=str(path)
            )
    except OSError as exc:
        raise InvalidInputError(str(path), f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InvalidInputError(str(path), "not UTF-8 text") from None
