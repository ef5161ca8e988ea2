"""Package re-exports loaded on first use (``phronesis.lazy``): each name is what it names, even
after every module of its package was imported (a function named like its module became the
module: ``from phronesis.replay import tune`` gave a module, and every tune answered 500)."""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

import phronesis

PACKAGES = sorted(
    m.name
    for m in pkgutil.iter_modules(phronesis.__path__, "phronesis.")
    if m.ispkg and "exports(" in (importlib.util.find_spec(m.name).loader.get_source(m.name) or "")  # type: ignore[union-attr]
)


def test_the_lazy_packages_are_found() -> None:
    assert {"phronesis.audit", "phronesis.replay", "phronesis.storage"} <= set(PACKAGES)


@pytest.mark.parametrize("name", PACKAGES)
def test_every_export_is_what_it_names_after_every_module_is_imported(name: str) -> None:
    package = importlib.import_module(name)
    for module in pkgutil.walk_packages(package.__path__, f"{name}."):
        importlib.import_module(module.name)
    for exported in package.__all__:
        assert not isinstance(getattr(package, exported), types.ModuleType), f"{name}.{exported}"
