"""The HTTP service (FastAPI). ``create_app`` is imported when first used, so a module that needs
only the API's models (the client's) does not build the app's whole import graph."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from phronesis.api.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from phronesis.api.app import create_app

        return create_app
    raise AttributeError(f"module 'phronesis.api' has no attribute {name!r}")
