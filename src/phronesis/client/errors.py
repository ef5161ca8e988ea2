"""What a failed call raises: one exception per kind of problem, built from the server's
problem+json (RFC 9457: ``title``, ``status``, ``detail``, and phronesis' ``field`` and
``errors``), so a caller can catch ``NotFound`` or read ``error.field`` instead of parsing."""

from __future__ import annotations

import email.utils
import time
from typing import Any

import httpx
from pydantic import ValidationError

from phronesis.exceptions import validation_message

__all__ = [
    "APIError",
    "ClientError",
    "Conflict",
    "InvalidInput",
    "InvalidRequest",
    "NotFound",
    "RateLimited",
    "ServerError",
    "TransportFailed",
    "QuotaExceeded",
    "Unauthorized",
    "Unavailable",
    "UnexpectedAnswer",
    "error_for",
    "retry_after",
]


class ClientError(Exception):
    """Every error the client raises."""


class TransportFailed(ClientError):
    """The server could not be reached (after the retries): the cause is httpx's error."""


class UnexpectedAnswer(ClientError):
    """A 2xx whose body is not the model the operation answers with (a proxy's page, another
    version of the server): the cause is pydantic's error."""


class APIError(ClientError):
    """The server answered with an error. ``field`` names the input at fault (a 4xx on bad
    input), ``errors`` lists every problem found; ``retry_after`` is the seconds the server asked
    to wait (429, 503)."""

    def __init__(self, response: httpx.Response) -> None:
        body = _problem(response)
        self.status: int = response.status_code
        self.title: str = str(body.get("title") or response.reason_phrase)
        self.detail: str = str(body.get("detail") or response.text[:500])
        self.field: str | None = body.get("field") if isinstance(body.get("field"), str) else None
        errors = body.get("errors")
        listed: list[Any] = errors if isinstance(errors, list) else []
        self.errors: list[dict[str, Any]] = [e for e in listed if isinstance(e, dict)]
        self.retry_after: float | None = retry_after(response)
        self.body: dict[str, Any] = body
        super().__init__(f"{self.status} {self.title}: {self.detail}")


class InvalidRequest(APIError):
    """400, 415, 422: the request was refused as it was; ``field`` says which part."""


class InvalidInput(InvalidRequest):
    """Input the client refused before sending (it is what the server would refuse with a 422):
    ``field`` names the first problem, ``errors`` lists them all. Caught as ``InvalidRequest``."""

    def __init__(self, model: str, error: ValidationError | None = None, *, field: str = "", message: str = "") -> None:
        problems = (
            [
                {"field": ".".join(str(p) for p in e["loc"]), "in": "body", "message": validation_message(e)}
                for e in error.errors()
            ]
            if error is not None
            else [{"field": field, "in": "path", "message": message}]
        )
        first = problems[0]
        self.status = 422
        self.title = "Invalid request (not sent)"
        self.detail = f"{first['field']}: {first['message']}" if first["field"] else str(first["message"])
        self.field = str(first["field"]) or None
        self.errors = problems
        self.retry_after = None
        self.body = {"title": self.title, "status": 422, "detail": self.detail, "errors": problems}
        Exception.__init__(self, f"{model}: {self.detail}")


class Unauthorized(APIError):
    """401, 403: no API key, or one that does not open this."""


class QuotaExceeded(APIError):
    """403 ``Quota exceeded``: the tenant stores as many rows of a kind (``field``) as its quota
    allows; nothing of the request was stored."""


class NotFound(APIError):
    """404."""


class Conflict(APIError):
    """409: it exists already, or was rated already."""


class RateLimited(APIError):
    """429, after the retries."""


class Unavailable(APIError):
    """503 (the database or the LLM is down), after the retries."""


class ServerError(APIError):
    """Another 5xx: ``body`` may carry an ``error_id`` to find the server's log line."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: InvalidRequest,
    401: Unauthorized,
    403: Unauthorized,
    404: NotFound,
    409: Conflict,
    415: InvalidRequest,
    422: InvalidRequest,
    429: RateLimited,
    503: Unavailable,
}


def error_for(response: httpx.Response) -> APIError:
    """The exception for an error response."""
    kind = _BY_STATUS.get(response.status_code)
    if response.status_code == 403 and _problem(response).get("title") == "Quota exceeded":
        kind = QuotaExceeded
    if kind is None:
        kind = ServerError if response.status_code >= 500 else APIError
    return kind(response)


def retry_after(response: httpx.Response) -> float | None:
    """The ``Retry-After`` header in seconds (a number, or an HTTP date), else None."""
    raw = response.headers.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _problem(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
