"""phronesis: a decision engine for LLM agents.

``Engine`` and the settings are imported when first used, so ``phronesis.client`` (an HTTP
client) and the CLI's quick commands do not pay for the whole engine's import."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from phronesis.engine import Engine
    from phronesis.settings import Settings, load_settings

__all__ = ["Engine", "Settings", "__version__", "load_settings"]

__version__ = "0.1.0"

_LAZY = {"Engine": "phronesis.engine", "Settings": "phronesis.settings", "load_settings": "phronesis.settings"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        try:
            module = importlib.import_module(_LAZY[name])
        except ModuleNotFoundError as missing:  # a client-only install (`pip install phronesis`)
            package = (missing.name or "a dependency").split(".")[0]
            raise ModuleNotFoundError(
                f"phronesis.{name} needs the server ({package} is not installed): pip install 'phronesis[server]'",
                name=missing.name,
            ) from None
        return getattr(module, name)
    raise AttributeError(f"module 'phronesis' has no attribute {name!r}")
