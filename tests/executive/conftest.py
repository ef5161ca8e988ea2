"""Engines wired for executive tests: a real database (SQLite and PostgreSQL), a scripted LLM, a hand-moved clock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.heuristics.models import Heuristic, HeuristicCreate
from phronesis.llm.types import LLMProvider, LLMRequest
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.testing import FixedClock, ScriptedLLM

PREDICTION = '{"success": 0.9, "confidence": 0.95}'
EngineFactory = Callable[..., Any]


def answering(answer: str, *, prediction: str = PREDICTION) -> ScriptedLLM:
    """An LLM that answers every event with ``answer`` and every prediction request with ``prediction``."""

    def respond(request: LLMRequest) -> str:
        return prediction if "Predict the probability" in request.prompt else answer

    return ScriptedLLM(respond)


@pytest.fixture
async def make_engine(
    tmp_path: Path, database: Database, embedder: HashingEmbedder, clock: FixedClock
) -> AsyncIterator[EngineFactory]:
    """``await make_engine(llm=…, executive={…})``: an engine on the test database; drained at teardown."""
    engines: list[Engine] = []

    async def build(llm: LLMProvider | None = None, **sections: Any) -> Engine:
        settings = Settings(data_dir=tmp_path, embeddings={"spec": "hashing:384"}, **sections)
        engine = Engine(settings, database=database, embedder=embedder, llm=llm, clock=clock)
        await engine.start(migrate=False)
        engines.append(engine)
        return engine

    yield build
    for engine in engines:
        await engine.background.drain()


async def add_heuristic(engine: Engine, condition: str, action: str, confidence: float, **fields: Any) -> Heuristic:
    return await engine.heuristics.add(
        "default", HeuristicCreate(condition_text=condition, action_text=action, confidence=confidence, **fields)
    )
