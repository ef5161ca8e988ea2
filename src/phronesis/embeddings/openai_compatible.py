"""Embeddings over the OpenAI wire format (OpenAI, Ollama, vLLM, any compatible server)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from phronesis.embeddings.types import Vectors, l2_normalize
from phronesis.exceptions import EmbeddingError, LLMError
from phronesis.faults import Fault
from phronesis.llm.guard import check_remote_call_allowed
from phronesis.llm.sdk_errors import import_sdk, translate_sdk_error

__all__ = ["OpenAICompatibleEmbedder"]

log = logging.getLogger("phronesis.embeddings")


class OpenAICompatibleEmbedder:
    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        dimension: int,
        api_key: str | None = None,
        timeout_s: float = 30.0,
    ) -> None:
        openai = self._sdk = import_sdk("openai", "openai")
        self._model = model
        self._dimension = dimension
        self.base_url = base_url.rstrip("/")
        self._client = openai.AsyncOpenAI(
            base_url=self.base_url, api_key=api_key or "not-needed", timeout=timeout_s, max_retries=2
        )
        self.fault = Fault(f"embeddings {model}", log)
        """An unreachable embedding server is logged once with its cause."""

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model_name(self) -> str:
        return self._model

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        with self.fault.watching(EmbeddingError):
            return await self._embed(texts)

    async def _embed(self, texts: Sequence[str]) -> Vectors:
        openai = self._sdk
        try:
            check_remote_call_allowed(self.base_url, "embedding")
            result = await self._client.embeddings.create(model=self._model, input=list(texts))
        except openai.OpenAIError as exc:
            raise EmbeddingError(str(translate_sdk_error(openai, exc, f"embeddings {self._model}"))) from exc
        except LLMError as exc:
            raise EmbeddingError(str(exc)) from exc
        rows = sorted(result.data, key=lambda item: item.index)
        vectors = np.asarray([row.embedding for row in rows], dtype=np.float32)
        if vectors.shape != (len(texts), self._dimension):
            raise EmbeddingError(
                f"embeddings {self._model}: expected {len(texts)}×{self._dimension}, got {vectors.shape}"
            )
        return l2_normalize(vectors)
