"""The embedding model's settings section (``PHRONESIS_EMBEDDING__*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr

from phronesis.schema import Schema
from phronesis.settings_parts import PositiveSeconds

__all__ = ["EmbeddingSettings"]


class EmbeddingSettings(Schema):
    spec: str = "local:all-MiniLM-L6-v2"
    """``local:all-MiniLM-L6-v2`` (offline, bundled weights), ``hashing:DIM`` (lexical, no model),
    ``openai:MODEL``, ``openai-compatible:BASE_URL#MODEL``."""
    api_key: SecretStr | None = None
    """The embedding provider's API key (openai, openai-compatible). Never logged."""
    base_url: str | None = None
    """The embedding provider's endpoint where it is not the spec's own."""
    timeout_s: PositiveSeconds = 30.0
    """How long one embedding request to a remote provider may take."""
    device: str = "cpu"
    """Where the local model runs under PyTorch (``cpu``, ``cuda``, ``mps``)."""
    runtime: Literal["auto", "onnx", "torch"] = "auto"
    """How the local model runs. ``auto``: ONNX Runtime where ``onnxruntime`` is installed (the
    same weights exported once and checked within cosine 0.999 of PyTorch's vectors; a few
    milliseconds a text instead of ~13, and the forward pass releases the GIL), else PyTorch.
    ``onnx``: ONNX Runtime or an error. ``torch``: PyTorch."""
    onnx_dir: Path | None = None
    """Where the ONNX export of the local model is kept (about 90 MB, made on first use). Unset:
    ``$XDG_CACHE_HOME/phronesis/models`` (``~/.cache/phronesis/models``)."""
    precision: Literal["auto", "float32", "bfloat16"] = "auto"
    """Local model arithmetic under PyTorch. ``auto``: bfloat16 where the CPU computes it natively (AVX512-BF16
    or AMX; measured 1.6x faster here, vectors within cosine 0.9999 of float32), else float32."""
    cache_size: int = Field(default=10_000, ge=0, le=10_000_000)
    """Texts whose vectors this process keeps (each tenant's apart): a repeated text is not embedded again. 0: off."""
    batch_max_size: int = Field(default=64, ge=1, le=4096)
    """The most texts embedded in one batch; concurrent requests share batches up to it."""
    batch_max_wait_ms: float = Field(default=0.0, ge=0.0, le=1000.0)
    """Extra wait before an idle model starts a batch. 0 (measured best here): requests that arrive
    in the same event-loop tick, or while a batch is running, still go together."""
