"""Base for embedders that add behaviour around another one (cache, micro-batching).

Like pydantic-ai's ``WrapperModel``: it delegates what a wrapper does not change, so
each wrapper states only what it adds.
"""

from __future__ import annotations

from phronesis.embeddings.types import Embedder

__all__ = ["EmbedderWrapper"]


class EmbedderWrapper:
    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def model_name(self) -> str:
        return self.inner.model_name
