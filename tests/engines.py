"""Building engines in tests: ``make_engine`` (a fixture in ``tests/conftest.py``) and small helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from phronesis.engine import Engine
from phronesis.heuristics.models import Heuristic, HeuristicCreate

EngineFactory = Callable[..., Any]
"""``await make_engine(llm=…, executive={…}, learning={…})``."""


async def add_heuristic(engine: Engine, condition: str, action: str, confidence: float, **fields: Any) -> Heuristic:
    return await engine.heuristics.add(
        "default", HeuristicCreate(condition_text=condition, action_text=action, confidence=confidence, **fields)
    )


def in_process_only(engine: Engine) -> None:
    """Skip a test about the in-process index (loading, following, worker thread) where the engine
    searches with pgvector and holds no index; its behaviour is tested there by the same tests."""
    if engine.index_backend == "pgvector":
        pytest.skip("about the in-process index; pgvector holds none")
