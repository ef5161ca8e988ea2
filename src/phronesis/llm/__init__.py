"""LLM providers behind one small protocol (seed 000's ``LLMProvider``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from phronesis.lazy import exports

if TYPE_CHECKING:
    from phronesis.llm.resilient import ResilientLLM, RetryPolicy
    from phronesis.llm.structured import (
        StructuredFailure,
        StructuredSuccess,
        generate_structured,
        parse_structured,
    )
    from phronesis.llm.types import LLMProvider, LLMRequest, LLMResponse, TokenUsage
    from phronesis.llm.untrusted import delimit

__all__ = [
    "LLMProvider",
    "LLMRequest",
    "LLMResponse",
    "ResilientLLM",
    "RetryPolicy",
    "StructuredFailure",
    "StructuredSuccess",
    "TokenUsage",
    "delimit",
    "generate_structured",
    "parse_structured",
]

__getattr__ = exports(
    __name__,
    {
        "LLMProvider": "phronesis.llm.types",
        "LLMRequest": "phronesis.llm.types",
        "LLMResponse": "phronesis.llm.types",
        "ResilientLLM": "phronesis.llm.resilient",
        "RetryPolicy": "phronesis.llm.resilient",
        "StructuredFailure": "phronesis.llm.structured",
        "StructuredSuccess": "phronesis.llm.structured",
        "TokenUsage": "phronesis.llm.types",
        "delimit": "phronesis.llm.untrusted",
        "generate_structured": "phronesis.llm.structured",
        "parse_structured": "phronesis.llm.structured",
    },
)
