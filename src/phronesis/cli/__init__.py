"""The ``phronesis`` command line."""

from phronesis.cli.app import app, main

__all__ = ["app", "main"]
