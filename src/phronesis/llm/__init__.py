"""LLM providers behind one small protocol (seed 000's ``LLMProvider``)."""

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
