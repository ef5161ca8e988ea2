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
    repaired: bool = False
    """The output was cut off (``max_tokens``) and closed here before it validated: the fields it
    had were whole, what was cut is missing. A decision point records it as such."""


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


@dataclass(slots=True)
class _Scan:
    """How far a JSON text got: the brackets still open, whether it stopped in a string, and where
    it could be cut and closed (after a value or an opening bracket)."""

    open: list[str]
    in_string: bool = False
    escaped: bool = False
    last_complete: int = 0
    closed: bool = False

    def feed(self, i: int, ch: str) -> None:
        if self.in_string:
            if self.escaped:
                self.escaped = False
            elif ch == "\\":
                self.escaped = True
            elif ch == '"':
                self.in_string, self.last_complete = False, i + 1
        elif ch == '"':
            self.in_string = True
        elif ch in "{[":
            self.open.append("}" if ch == "{" else "]")
            self.last_complete = i + 1
        elif ch in "}]":
            if self.open:
                self.open.pop()
            self.closed = not self.open  # the outermost object closed (or a stray closing bracket)
            self.last_complete = i + 1
        elif ch not in " \t\r\n,:":
            self.last_complete = i + 1


def close_truncated(text: str) -> str | None:
    """``text`` from its first ``{`` with what a cut-off answer left open closed: an unfinished
    string, a key without its value, a value cut inside (``12`` of ``123``), a trailing comma,
    open arrays and objects. None when there is no object, or it was not left open (a closed
    object that does not parse is not repaired)."""
    start = text.find("{")
    if start == -1:
        return None
    body, scan = text[start:], _Scan([])
    for i, ch in enumerate(body):
        scan.feed(i, ch)
        if scan.closed:
            return None  # the object closed: nothing was cut off
    if scan.in_string:
        escape = re.search(r"(\\+)(u[0-9a-fA-F]{0,3})?$", body)
        if escape and len(escape.group(1)) % 2:  # cut inside an escape: \ or \u00 is dropped
            body = body[: escape.start(1)] + escape.group(1)[:-1]
        if re.search(r"(?<!\\)(?:\\\\)*\\u[dD][89abAB][0-9a-fA-F]{2}$", body):  # half a surrogate pair
            body = body[:-6]
        body += '"'
        scan.last_complete = len(body)
    cut = body[: scan.last_complete].rstrip()
    if not scan.in_string and cut == body.rstrip():  # it stopped inside a bare value (12 of 123, tr of true)
        cut = re.sub(r"[-+\w.]+$", "", cut).rstrip()
    # a key with no value yet, or a dangling comma, is dropped
    cut = re.sub(r',\s*"(?:[^"\\]|\\.)*"\s*:?\s*$', "", cut)
    cut = re.sub(r'([{,])\s*"(?:[^"\\]|\\.)*"\s*:?\s*$', r"\1", cut)
    cut = cut.rstrip().rstrip(",")
    return None if cut.endswith(":") else cut + "".join(reversed(scan.open))


def parse_structured(text: str, output_type: type[T]) -> T | StructuredFailure:
    """Validate ``text`` as ``output_type``; a failure says which step broke."""
    parsed = _parse(text, output_type, repair=False)
    return parsed[0] if isinstance(parsed, tuple) else parsed


def _parse(text: str, output_type: type[T], *, repair: bool) -> tuple[T, bool] | StructuredFailure:
    """The value and whether a cut-off answer had to be closed first (``close_truncated``, with
    ``repair``)."""
    if not text.strip():
        return StructuredFailure("empty_output", "the LLM returned no text", raw_text=text)
    candidate = extract_json(text)
    repaired = False
    try:
        if candidate is None:
            raise json.JSONDecodeError("no JSON object in the output", text, 0)
        data = json.loads(candidate)
    except json.JSONDecodeError as exc:
        closed = close_truncated(text) if repair else None
        if closed is None:
            detail = "no JSON object in the output" if candidate is None else f"invalid JSON: {exc.msg}"
            return StructuredFailure("not_json", detail, raw_text=text)
        try:
            data = json.loads(closed)
        except json.JSONDecodeError:
            return StructuredFailure("not_json", f"cut off, and not repairable: {exc.msg}", raw_text=text)
        repaired = True
    try:
        return output_type.model_validate(data), repaired
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        cut = " (in an answer that was cut off)" if repaired else ""
        return StructuredFailure("schema_mismatch", f"{where}: {first['msg']}{cut}", raw_text=text)


def schema_instruction(output_type: type[BaseModel]) -> str:
    schema = json.dumps(output_type.model_json_schema(), separators=(",", ":"))
    return f"Answer with only one JSON object that matches this JSON Schema:\n{schema}"


async def generate_structured(
    llm: LLMProvider,
    request: LLMRequest,
    output_type: type[T],
    *,
    include_schema: bool = True,
    repair_truncated: bool = False,
) -> StructuredSuccess[T] | StructuredFailure:
    """Call ``llm`` asking for JSON and validate the answer into ``output_type``. With
    ``repair_truncated``, an answer cut off before its object closed is closed and validated
    (``StructuredSuccess.repaired``): a caller that asks for it records it."""
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
    parsed = _parse(response.text, output_type, repair=repair_truncated)
    if isinstance(parsed, StructuredFailure):
        return StructuredFailure(parsed.reason, parsed.detail, raw_text=response.text, response=response)
    return StructuredSuccess(value=parsed[0], raw_text=response.text, response=response, repaired=parsed[1])
