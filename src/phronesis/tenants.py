"""The tenant a single-user install works in, importable without the engine (a CLI command's
``--tenant`` default must not cost the engine's imports)."""

from __future__ import annotations

__all__ = ["DEFAULT_TENANT"]

DEFAULT_TENANT = "default"
