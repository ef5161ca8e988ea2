"""Translate the ``openai`` SDK's exceptions into phronesis's, in one place.

Shared by the chat provider and the OpenAI-compatible embedder so both classify
failures (retryable or not) the same way.
"""

from __future__ import annotations

from phronesis.exceptions import (
    LLMConnectionError,
    LLMError,
    LLMRateLimitError,
    LLMRequestError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
)

__all__ = ["translate_openai_error"]


def translate_openai_error(exc: Exception, what: str) -> LLMError:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return LLMTimeoutError(f"{what}: request timed out")
    if isinstance(exc, openai.APIConnectionError):
        return LLMConnectionError(f"{what}: cannot connect ({exc})")
    if isinstance(exc, openai.RateLimitError):
        return LLMRateLimitError(f"{what}: rate limited (429)", status_code=429)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status >= 500:
            return LLMServerError(f"{what}: server error {status}", status_code=status)
        return LLMRequestError(f"{what}: request rejected with {status}", status_code=status)
    return LLMResponseError(f"{what}: unusable response ({type(exc).__name__}: {exc})")
