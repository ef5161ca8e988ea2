"""Package re-exports loaded on first use (PEP 562), so importing one light module of a package
(``phronesis.audit.models``) does not import its heavy neighbours (the repository, SQLAlchemy,
Alembic). Otherwise every CLI command pays for them before it does anything."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["exports"]


def exports(package: str, where: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package`` that imports ``name`` from ``where[name]`` when it
    is first asked for, and keeps it on the package."""

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
