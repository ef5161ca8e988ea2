"""The library entry point: builds the store and providers from ``Settings``, once.

Decision points do not import each other; they meet here. Every part can be injected
(database, embedder, LLM, clock) so tests and embedders of phronesis choose their own.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Final

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.clock import Clock, SystemClock
from phronesis.embeddings.registry import build_embedder
from phronesis.embeddings.types import Embedder
from phronesis.heuristics.memory import HeuristicMemory
from phronesis.heuristics.repository import HeuristicRepository
from phronesis.llm.registry import build_llm
from phronesis.llm.types import LLMProvider
from phronesis.settings import Settings, load_settings
from phronesis.storage.database import Database
from phronesis.storage.hnsw_index import HnswVectorIndex
from phronesis.storage.migrate import upgrade
from phronesis.storage.partitioned_index import PartitionedIndex

__all__ = ["Engine"]


class _Unset:
    pass


_UNSET: Final = _Unset()


class Engine:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        database: Database | None = None,
        embedder: Embedder | None = None,
        llm: LLMProvider | None | _Unset = _UNSET,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        self.clock = clock or SystemClock()
        self.database = database or Database(
            self.settings.database_url(),
            echo=self.settings.database.echo,
            pool_size=self.settings.database.pool_size,
        )
        self.llm: LLMProvider | None = build_llm(self.settings.llm) if isinstance(llm, _Unset) else llm
        self.embedder = embedder or build_embedder(self.settings.embeddings)
        index_settings = self.settings.index
        self.index = PartitionedIndex(
            self.embedder.dimension,
            exact_max_size=index_settings.exact_max_size,
            hnsw_factory=lambda dim: HnswVectorIndex(
                dim,
                connectivity=index_settings.hnsw_connectivity,
                expansion_add=index_settings.hnsw_expansion_add,
                expansion_search=index_settings.hnsw_expansion_search,
            ),
        )
        self.heuristics = HeuristicMemory(
            HeuristicRepository(
                self.database,
                prior_strength=self.settings.heuristics.prior_strength,
                default_confidence=self.settings.heuristics.default_confidence,
                clock=self.clock,
            ),
            self.embedder,
            self.index,
            self.settings.heuristics,
        )
        self.decisions = DecisionRecordRepository(self.database, clock=self.clock)
        self.started = False

    async def start(
        self,
        *,
        migrate: bool = True,
        load_index: bool = True,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Migrate and rebuild the vector index from the database (each can be skipped).

        Commands that only read or write rows (``heuristics list``) skip the index load.
        """
        if migrate:
            await upgrade(self.database)
        if load_index:
            await self.heuristics.load_index(progress)
        self.started = load_index

    async def close(self) -> None:
        await self.database.dispose()

    async def __aenter__(self) -> Engine:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()
