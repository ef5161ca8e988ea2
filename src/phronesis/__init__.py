"""phronesis: a decision engine for LLM agents."""

from phronesis.engine import Engine
from phronesis.settings import Settings, load_settings

__all__ = ["Engine", "Settings", "__version__", "load_settings"]

__version__ = "0.1.0"
