"""OpenAI-compatible embeddings and the Anthropic Messages provider, against the loopback server."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from phronesis.embeddings.openai_compatible import OpenAICompatibleEmbedder
from phronesis.exceptions import EmbeddingError, LLMResponseError, LLMServerError
from phronesis.llm import LLMRequest
from phronesis.llm.anthropic import AnthropicProvider
from tests.llm.chat_server import ChatServer, running_chat_server


@pytest.fixture(scope="module")
def server() -> Iterator[ChatServer]:
    with running_chat_server() as s:
        yield s


async def test_embeddings_are_ordered_by_index_and_normalised(server: ChatServer) -> None:
    embedder = OpenAICompatibleEmbedder("embed", base_url=server.base_url, dimension=4)
    vectors = await embedder.embed(["ab", "abcd"])
    assert vectors.shape == (2, 4) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert vectors[0][3] == 0.0 and vectors[1][3] > 0  # row i came from index i


async def test_embedding_failures_and_wrong_dimensions_are_embedding_errors(server: ChatServer) -> None:
    with pytest.raises(EmbeddingError):
        await OpenAICompatibleEmbedder("500", base_url=server.base_url, dimension=4).embed(["x"])
    with pytest.raises(EmbeddingError, match="expected"):
        await OpenAICompatibleEmbedder("embed", base_url=server.base_url, dimension=8).embed(["x"])
    remote = OpenAICompatibleEmbedder("text-embedding-3-small", base_url="https://api.openai.com/v1", dimension=1536)
    with pytest.raises(EmbeddingError, match="forbidden"):
        await remote.embed(["this would cost money"])


async def test_anthropic_provider_speaks_the_messages_api(server: ChatServer) -> None:
    base = server.base_url.removesuffix("/v1")
    llm = AnthropicProvider("claude-test", api_key="k", base_url=base)
    response = await llm.generate(LLMRequest(prompt="hi", system_prompt="sys"))
    assert response.text == "claude: hi" and response.tokens_used == 8
    assert server.requests[-1]["system"] == "sys"
    with pytest.raises(LLMResponseError) as refused:
        await AnthropicProvider("refusal", api_key="k", base_url=base).generate(LLMRequest(prompt="x"))
    assert refused.value.reason == "llm_refusal"
    with pytest.raises(LLMServerError):
        await AnthropicProvider("529", api_key="k", base_url=base).generate(LLMRequest(prompt="x"))
