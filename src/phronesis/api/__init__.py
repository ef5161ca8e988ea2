"""The HTTP service (FastAPI)."""

from phronesis.api.app import create_app

__all__ = ["create_app"]
