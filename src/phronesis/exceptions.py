"""Every error phronesis raises, in one place.

The tree, so a caller can catch at the depth it cares about::

    PhronesisError
    ├── ConfigurationError        a setting or spec string is wrong (developer mistake)
    ├── InvalidInputError         a caller handed us bad data; carries the field name
    ├── NotFoundError             no such row for this tenant
    ├── ConflictError             the row exists already / a uniqueness rule was broken
    ├── QuotaExceededError        the tenant stores as many rows of a kind as its quota allows (403)
    ├── StorageError              the database failed (not the caller's fault)
    │   ├── StorageUnavailable    it could not be reached or timed out: retry later (HTTP 503)
    │   └── StorageContention     it rolled the call back to break a deadlock: retry now (HTTP 503)
    ├── EmbeddingError            the embedding model failed
    └── LLMError                  the LLM failed; decision points turn it into their fallback
        ├── LLMCallForbiddenError a real LLM call was attempted where none is allowed (tests)
        ├── LLMTimeoutError       retryable
        ├── LLMConnectionError    retryable
        ├── LLMRateLimitError     retryable (429)
        ├── LLMServerError        retryable (5xx)
        ├── LLMRequestError       not retryable (4xx other than 429: bad key, bad model)
        └── LLMResponseError      the answer could not be used (empty, refusal, wrong shape)

Third-party exceptions (SQLAlchemy, openai, anthropic, torch) are translated at the
boundary with ``raise ... from``; none escapes the public API.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

__all__ = [
    "validated",
    "validation_message",
    "ConfigurationError",
    "ConflictError",
    "EmbeddingError",
    "InvalidInputError",
    "LLMCallForbiddenError",
    "LLMConnectionError",
    "LLMError",
    "LLMRateLimitError",
    "LLMRequestError",
    "LLMResponseError",
    "LLMServerError",
    "LLMTimeoutError",
    "NotFoundError",
    "PhronesisError",
    "QuotaExceededError",
    "StorageContention",
    "StorageError",
    "StorageUnavailable",
    "invalid_input",
]


class PhronesisError(Exception):
    """Base of every phronesis error."""


class ConfigurationError(PhronesisError):
    """A setting, spec string or environment variable is invalid."""


class InvalidInputError(PhronesisError):
    """Input that cannot be accepted; ``field`` names what was wrong (dotted path)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def validated(model: type[M], data: Any) -> M:
    """``data`` validated into ``model``, or the first problem as an ``InvalidInputError`` naming its
    field: the one mapping of a pydantic error to the input error every surface reports (HTTP 422
    problem+json, the CLI's one line, MCP's tool error)."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise invalid_input(error) from None


def invalid_input(error: ValidationError) -> InvalidInputError:
    """The first problem of a pydantic validation error, as an ``InvalidInputError`` naming its field."""
    first = error.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or "(input)"
    return InvalidInputError(field, validation_message(first))


class NotFoundError(PhronesisError):
    """The tenant has no such object; never says whether another tenant has it."""

    def __init__(self, kind: str, key: str) -> None:
        super().__init__(f"{kind} {key!r} not found")
        self.kind = kind
        self.key = key


class ConflictError(PhronesisError):
    """The write would break a uniqueness rule (e.g. an id that exists)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class QuotaExceededError(PhronesisError):
    """A tenant would store more rows of ``kind`` than ``quotas.<kind>`` allows: nothing was stored."""

    def __init__(self, kind: str, limit: int, used: int, adding: int) -> None:
        self.field = kind
        super().__init__(
            f"this tenant stores {used} {kind} and its quota is {limit} (PHRONESIS_QUOTAS__{kind.upper()}): "
            f"{adding} more would pass it; delete some, or ask for a larger quota"
        )


class StorageError(PhronesisError):
    """The database failed for a reason that is not the caller's input."""


class StorageUnavailable(StorageError):
    """The database could not be reached, dropped the connection or timed out: nothing was
    committed by the failed call, and the same call may succeed once it is back."""


class StorageContention(StorageError):
    """PostgreSQL rolled the call's transaction back to break a deadlock or a serialization conflict
    with another transaction (SQLSTATE class 40): nothing was committed, the database is fine, and
    the same call may succeed at once. Writers take their locks in one order so that this is rare;
    a client that retries a 503 recovers from what remains."""


class EmbeddingError(PhronesisError):
    """The embedding model could not embed the texts."""


class LLMError(PhronesisError):
    """The LLM call failed. ``reason`` is a short code recorded in decision records."""

    reason: str = "llm_error"
    retryable: bool = False

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class LLMCallForbiddenError(LLMError):
    """A real (non-loopback) LLM call was attempted while such calls are forbidden."""

    reason = "llm_call_forbidden"


class LLMTimeoutError(LLMError):
    reason = "llm_timeout"
    retryable = True


class LLMConnectionError(LLMError):
    reason = "llm_connection_error"
    retryable = True


class LLMRateLimitError(LLMError):
    reason = "llm_rate_limited"
    retryable = True


class LLMServerError(LLMError):
    reason = "llm_server_error"
    retryable = True


class LLMRequestError(LLMError):
    reason = "llm_request_rejected"


class LLMResponseError(LLMError):
    reason = "llm_bad_response"


def validation_message(error: Mapping[str, Any]) -> str:
    """A pydantic error's message as a person reads it: without the "Value error, " pydantic puts
    before a validator's own words (``the time is out of range…``, not ``Value error, the time…``)."""
    return str(error.get("msg", "invalid")).removeprefix("Value error, ")
