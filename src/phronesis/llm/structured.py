"""Ask an LLM for JSON matching a pydantic model; get a typed value or a typed failure.

LLM output is untrusted (ARCHITECTURE): it is parsed and validated, and every way it
can go wrong becomes a ``StructuredFailure`` whose ``reason`` a decision point records
before it takes its seed's fallback. Nothing here raises for bad LLM output.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from phronesis.exceptions import LLMError
from phronesis.llm.types import LLMProvider, LLMRequest, LLMResponse

__all__ = [
    "StructuredFailure",
    "StructuredResult",
    "StructuredSuccess",
    "extract_json",
    "generate_structured",
    "parse_structured",
    "upper_label",
]

T = TypeVar("T", bound=BaseModel)

FailureReason = Literal["llm_error", "empty_output", "not_json", "schema_mismatch"]

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class StructuredSuccess(Generic[T]):
    value: T
    raw_text: str
    response: LLMResponse


@dataclass(frozen=True, slots=True)
class StructuredFailure:
    reason: FailureReason
    detail: str
    raw_text: str | None = None
    response: LLMResponse | None = None
    error: LLMError | None = None


StructuredResult = StructuredSuccess[T] | StructuredFailure


def upper_label(value: Any) -> Any:
    """Models write "replace" or " MERGE "; a label field compares stripped and upper-case
    (use as ``field_validator(..., mode="before")``)."""
    return value.strip().upper() if isinstance(value, str) else value


def extract_json(text: str) -> str | None:
    """The JSON object in ``text``: inside a code fence if there is one, else the outermost braces."""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end < start:
        return None
    return text[start : end + 1]


def parse_structured(text: str, output_type: type[T]) -> T | StructuredFailure:
    """Validate ``text`` as ``output_type``; a failure says which step broke."""
    if not text.strip():
        return StructuredFailure("empty_output", "the LLM returned no text", raw_text=text)
    candidate = extract_json(text)
    if candidate is None:
        return StructuredFailure("not_json", "no JSON object in the output", raw_text=text)
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as exc:
        return StructuredFailure("not_json", f"invalid JSON: {exc.msg}", raw_text=text)
    try:
        return output_type.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        return StructuredFailure("schema_mismatch", f"{where}: {first['msg']}", raw_text=text)


def schema_instruction(output_type: type[BaseModel]) -> str:
    schema = json.dumps(output_type.model_json_schema(), separators=(",", ":"))
    return f"Answer with only one JSON object that matches this JSON Schema:\n{schema}"


async def generate_structured(
    llm: LLMProvider,
    request: LLMRequest,
    output_type: type[T],
    *,
    include_schema: bool = True,
) -> StructuredSuccess[T] | StructuredFailure:
    """Call ``llm`` asking for JSON and validate the answer into ``output_type``."""
    prompt = request.prompt
    if include_schema:
        prompt = f"{prompt}\n\n{schema_instruction(output_type)}"
    json_request = LLMRequest(
        prompt=prompt,
        system_prompt=request.system_prompt,
        format="json",
        max_tokens=request.max_tokens,
        temperature=request.temperature,
    )
    try:
        response = await llm.generate(json_request)
    except LLMError as exc:
        return StructuredFailure("llm_error", f"{exc.reason}: {exc}", error=exc)
    parsed = parse_structured(response.text, output_type)
    if isinstance(parsed, StructuredFailure):
        return StructuredFailure(parsed.reason, parsed.detail, raw_text=response.text, response=response)
    return StructuredSuccess(value=parsed, raw_text=response.text, response=response)
