"""The OpenAI-compatible provider against a real loopback HTTP server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from phronesis.exceptions import (
    LLMCallForbiddenError,
    LLMRateLimitError,
    LLMRequestError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
)
from phronesis.llm import LLMRequest, ResilientLLM, RetryPolicy, StructuredFailure, generate_structured
from phronesis.llm.openai_compatible import OpenAICompatibleProvider
from phronesis.llm.registry import build_llm
from phronesis.llm.settings import LLMSettings
from tests.llm.chat_server import ChatServer, running_chat_server


@pytest.fixture(scope="module")
def server() -> Iterator[ChatServer]:
    with running_chat_server() as s:
        yield s


def provider(server: ChatServer, model: str, timeout_s: float = 5.0) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(model, base_url=server.base_url, timeout_s=timeout_s)


async def _no_sleep(_: float) -> None:
    return None


async def test_answer_text_usage_and_wire_format(server: ChatServer) -> None:
    response = await provider(server, "ok").generate(LLMRequest(prompt="hello", system_prompt="be brief"))
    assert response.text == "echo: hello"
    assert (response.usage.prompt_tokens, response.usage.completion_tokens, response.tokens_used) == (11, 7, 18)
    assert response.latency_ms > 0
    sent = server.requests[-1]
    assert sent["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]


async def test_json_format_asks_for_a_json_object_and_fences_are_stripped(server: ChatServer) -> None:
    class Prediction(BaseModel):
        success: float
        confidence: float

    result = await generate_structured(provider(server, "json"), LLMRequest(prompt="predict"), Prediction)
    assert not isinstance(result, StructuredFailure)
    assert result.value == Prediction(success=0.9, confidence=0.7)
    assert server.requests[-1]["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize(
    ("model", "error"),
    [
        ("500", LLMServerError),
        ("429", LLMRateLimitError),
        ("400", LLMRequestError),
        ("nonjson", LLMResponseError),
        ("malformed", LLMResponseError),
        ("refusal", LLMResponseError),
        ("empty", LLMResponseError),
    ],
)
async def test_failures_become_typed_errors(server: ChatServer, model: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        await provider(server, model).generate(LLMRequest(prompt="x"))


async def test_refusal_is_recorded_as_such(server: ChatServer) -> None:
    with pytest.raises(LLMResponseError) as caught:
        await provider(server, "refusal").generate(LLMRequest(prompt="x"))
    assert caught.value.reason == "llm_refusal"


async def test_slow_server_times_out(server: ChatServer) -> None:
    with pytest.raises(LLMTimeoutError):
        await provider(server, "slow", timeout_s=0.3).generate(LLMRequest(prompt="x"))


async def test_resilient_wrapper_retries_a_5xx_then_succeeds(server: ChatServer) -> None:
    llm = ResilientLLM(provider(server, "flaky"), retry=RetryPolicy(max_retries=2), sleep=_no_sleep)
    response = await llm.generate(LLMRequest(prompt="again"))
    assert response.text == "echo: again"
    assert llm.attempts == 2


async def test_resilient_wrapper_gives_up_after_bounded_retries(server: ChatServer) -> None:
    llm = ResilientLLM(provider(server, "500"), retry=RetryPolicy(max_retries=2), sleep=_no_sleep)
    with pytest.raises(LLMServerError):
        await llm.generate(LLMRequest(prompt="x"))
    assert llm.attempts == 3


async def test_resilient_wrapper_does_not_retry_a_4xx(server: ChatServer) -> None:
    llm = ResilientLLM(provider(server, "400"), retry=RetryPolicy(max_retries=3), sleep=_no_sleep)
    with pytest.raises(LLMRequestError):
        await llm.generate(LLMRequest(prompt="x"))
    assert llm.attempts == 1


async def test_structured_output_failure_is_typed_not_raised(server: ChatServer) -> None:
    class Anything(BaseModel):
        value: int

    result = await generate_structured(
        provider(server, "ok"), LLMRequest(prompt="no json here"), Anything, include_schema=False
    )
    assert isinstance(result, StructuredFailure) and result.reason == "not_json"
    result = await generate_structured(provider(server, "500"), LLMRequest(prompt="x"), Anything)
    assert isinstance(result, StructuredFailure) and result.reason == "llm_error"


async def test_registry_builds_a_wrapped_provider_from_a_spec(server: ChatServer) -> None:
    llm = build_llm(LLMSettings(spec=f"openai-compatible:{server.base_url}#ok", max_retries=0))
    assert isinstance(llm, ResilientLLM) and llm.model_name == "ok"
    assert (await llm.generate(LLMRequest(prompt="spec"))).text == "echo: spec"


async def test_remote_calls_are_forbidden_in_the_test_suite() -> None:
    remote = OpenAICompatibleProvider("gpt-x", base_url="https://api.openai.com/v1", api_key="sk-test")
    with pytest.raises(LLMCallForbiddenError):
        await remote.generate(LLMRequest(prompt="this would cost money"))
