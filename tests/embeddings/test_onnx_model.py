"""The local model under ONNX Runtime: the same vectors as PyTorch, an export that is checked,
cached, replaced when broken, and an honest fall-back to PyTorch."""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from phronesis.embeddings import onnx_model
from phronesis.embeddings.local import LocalSentenceEmbedder, bundled_model_path, default_onnx_dir
from phronesis.embeddings.onnx_model import MIN_COSINE, load_onnx_model, weights_digest
from phronesis.exceptions import EmbeddingError

pytestmark = pytest.mark.model

TEXTS = [
    "it is freezing in the living room",
    "the lounge is very cold",
    "book a flight to Paris for Tuesday",
    "what is my account balance?",
    "Rotate API credentials for the billing service",
    "Vault returned permission denied",
    "Process invoice 4471 for customer 88",
    "MA1521 lab report is due tomorrow at 09:00",
    "Can you cancel our demo? Something came up.",
    "How many vacation days do I get?",
    "ok",
    "¿Dónde está la estación de tren?",
    "数据保留政策是什么",
    "🙂 thanks!!",
    "The refund policy: annual plans are refundable within 30 days; monthly plans are not. " * 12,
    " ".join(f"step {n}: restart pod-{n} and check the logs" for n in range(80)),
]


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """PyTorch's float32 vectors of ``TEXTS``: what the export must reproduce."""
    return LocalSentenceEmbedder(precision="float32", runtime="torch").embed_sync(TEXTS)


@pytest.fixture(scope="module")
def exported() -> Path:
    """The export of the shipped weights (made once per machine, as the product makes it)."""
    embedder = LocalSentenceEmbedder(runtime="onnx")
    embedder.embed_sync(["warm"])
    path = default_onnx_dir() / f"all-MiniLM-L6-v2-{weights_digest(Path(bundled_model_path()))}.onnx"
    assert path.exists()
    return path


def test_onnx_vectors_match_pytorch_within_the_bar(exported: Path, reference: np.ndarray) -> None:
    """Stored vectors made by PyTorch and new ones made by ONNX Runtime must mean the same thing,
    one text at a time and in padded batches, including texts past the 256-token limit."""
    embedder = LocalSentenceEmbedder()
    batched = embedder.embed_sync(TEXTS)
    one_by_one = np.concatenate([embedder.embed_sync([text]) for text in TEXTS])
    assert embedder.runtime == "onnx" and embedder.precision == "float32"
    assert batched.shape == (len(TEXTS), 384) and batched.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(batched * reference, axis=1))) >= MIN_COSINE
    assert float(np.min(np.sum(one_by_one * reference, axis=1))) >= MIN_COSINE
    assert embedder.embed_sync([]).shape == (0, 384)


def test_a_cached_export_is_used_without_exporting_again(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(exported, tmp_path / exported.name)

    def no_export(model_dir: Path, path: Path) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_model, "_export", no_export)
    embedder = LocalSentenceEmbedder(onnx_dir=tmp_path)
    assert embedder.embed_sync(["hello"]).shape == (1, 384) and embedder.runtime == "onnx"


def test_a_broken_cached_export_is_exported_again(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A file cut short (a disk filled up, a copy interrupted) is replaced, and the fault logged."""
    (tmp_path / exported.name).write_bytes(exported.read_bytes()[:1000])
    exports: list[Path] = []

    def copy_export(model_dir: Path, path: Path) -> None:
        exports.append(path)
        shutil.copy(exported, path)

    monkeypatch.setattr(onnx_model, "_export", copy_export)
    with caplog.at_level(logging.WARNING, logger="phronesis.embeddings.onnx_model"):
        embedder = LocalSentenceEmbedder(onnx_dir=tmp_path)
        embedder.embed_sync(["hello"])
    assert embedder.runtime == "onnx" and len(exports) == 1
    assert [r.message for r in caplog.records if "exporting again" in r.message]
    assert sorted(p.name for p in tmp_path.iterdir()) == [exported.name]  # no partial file left


def test_an_export_that_does_not_match_pytorch_is_refused(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(onnx_model, "_export", lambda model_dir, path: shutil.copy(exported, path))
    rng = np.random.default_rng(0)

    def elsewhere(texts: list[str]) -> np.ndarray:
        return rng.normal(size=(len(texts), 384)).astype(np.float32)

    with pytest.raises(EmbeddingError, match="only cosine"):
        load_onnx_model(Path(bundled_model_path()), tmp_path, elsewhere)
    assert list(tmp_path.iterdir()) == []  # nothing cached, nothing half-written


def test_without_onnxruntime_auto_runs_pytorch_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if it were not installed
    with caplog.at_level(logging.WARNING, logger="phronesis.embeddings.local"):
        embedder = LocalSentenceEmbedder(onnx_dir=tmp_path)
        embedder.embed_sync(["hello"])
        embedder.embed_sync(["again"])
    assert embedder.runtime == "torch"
    warnings = [r.message for r in caplog.records if "runs on PyTorch" in r.message]
    assert len(warnings) == 1 and "onnxruntime" in warnings[0]
    with pytest.raises(EmbeddingError, match="cannot run under ONNX Runtime"):
        LocalSentenceEmbedder(runtime="onnx", onnx_dir=tmp_path).embed_sync(["hello"])


class _Recording:
    """An inference session that notes the shape of every batch it runs."""

    def __init__(self, session: object) -> None:
        self._session = session
        self.shapes: list[tuple[int, int]] = []

    def run(self, names: object, feeds: dict[str, np.ndarray]) -> object:
        self.shapes.append(feeds["input_ids"].shape)
        return self._session.run(names, feeds)  # type: ignore[attr-defined]


def test_short_texts_are_not_padded_to_a_long_one_in_their_batch(exported: Path) -> None:
    """A document's passages are its whole text (256 word pieces) and its short sentences: padded to
    the longest, 64 of them cost 4.3 s instead of 0.24 s. Grouped by length, the long text runs
    apart and the vectors are the same as one by one."""
    embedder = LocalSentenceEmbedder(runtime="onnx")
    embedder.embed_sync(["warm"])
    model = embedder._load().__self__  # type: ignore[attr-defined]
    recording = _Recording(model._session)
    model._session = recording
    sentences = [f"Entry {n}: the team reviewed invoice {n} against the signed order." for n in range(40)]
    texts = [" ".join(sentences)] + sentences  # the whole document first, as its passages come
    vectors = embedder.embed_sync(texts)
    assert max(width for rows, width in recording.shapes if rows > 1) < 64, recording.shapes
    assert sum(rows for rows, _ in recording.shapes) == len(texts)
    one_by_one = np.concatenate([embedder.embed_sync([text]) for text in texts[:3]])
    assert float(np.min(np.sum(vectors[:3] * one_by_one, axis=1))) >= 0.9999
