"""RFC 9457 problem+json for every error, naming the field that was wrong.

No traceback ever reaches a client: a database that cannot be reached is a 503 with
``Retry-After``; anything unexpected is a plain 500 carrying an ``error_id`` that the server
log repeats beside the traceback, so an operator can find the one a client reports.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from phronesis.exceptions import (
    ConfigurationError,
    ConflictError,
    EmbeddingError,
    InvalidInputError,
    NotFoundError,
    PhronesisError,
    QuotaExceededError,
    StorageContention,
    StorageUnavailable,
    validation_message,
)

__all__ = ["RETRY_AFTER_S", "install_problem_handlers", "problem_response"]

log = logging.getLogger("phronesis.api")
PROBLEM_JSON = "application/problem+json"
_LOCATIONS = {"body", "query", "path", "header", "cookie"}
RETRY_AFTER_S = 2
"""What a 503 asks a client to wait: a restarted database is usually back within seconds."""


def problem_response(
    status: int,
    title: str,
    detail: str,
    *,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
    error_id: str | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    if error_id is not None:
        body["error_id"] = error_id
    if errors:
        body["errors"] = errors
        body["field"] = errors[0]["field"]
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _field_error(error: dict[str, Any]) -> dict[str, Any]:
    loc = [str(part) for part in error.get("loc", ())]
    where = loc[0] if loc and loc[0] in _LOCATIONS else None
    path = loc[1:] if where else loc
    return {"field": ".".join(path) or where or "(request)", "in": where, "message": validation_message(error)}


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    raw = [dict(e) for e in exc.errors()]
    malformed = next((e for e in raw if e.get("type") == "json_invalid"), None)
    if malformed is not None:
        return _not_json(await request.body(), malformed)
    about_body = any(tuple(e.get("loc", ()))[:1] == ("body",) for e in raw)
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if about_body and request.method in ("POST", "PUT", "PATCH") and not _is_json(media_type):
        got = repr(media_type) if media_type else "none"
        return problem_response(
            415,
            "Unsupported Media Type",
            f"send the body as JSON with the header Content-Type: application/json (got {got})",
            errors=[{"field": "content-type", "in": "header", "message": "expected application/json"}],
        )
    errors = [_field_error(e) for e in raw]
    first = errors[0] if errors else {"field": "(request)", "message": "invalid request"}
    return problem_response(422, "Invalid request", f"{first['field']}: {first['message']}", errors=errors)


def _is_json(media_type: str) -> bool:
    return media_type == "application/json" or media_type.endswith("+json")


def _not_json(body: bytes, error: dict[str, Any]) -> JSONResponse:
    """400 naming where the body stops being JSON (line and column, as an editor shows them)."""
    loc = tuple(error.get("loc", ()))
    position = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else len(body)
    before = body[:position]
    line = before.count(b"\n") + 1
    column = position - (before.rfind(b"\n") + 1) + 1
    reason = str((error.get("ctx") or {}).get("error", "invalid JSON"))
    detail = f"the request body is not valid JSON: {reason} at line {line}, column {column}"
    return problem_response(400, "Malformed JSON", detail, errors=[{"field": "body", "in": "body", "message": detail}])


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400 and request.method in ("POST", "PUT", "PATCH"):
        # FastAPI's own "error parsing the body" (e.g. bytes that are not UTF-8): say what and where
        body = await request.body()
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as error:
            detail = f"the request body is not UTF-8 text: byte {error.start + 1} cannot be decoded"
            return problem_response(
                400, "Malformed JSON", detail, errors=[{"field": "body", "in": "body", "message": detail}]
            )
    headers = dict(exc.headers) if exc.headers else None
    return problem_response(exc.status_code, _title(exc.status_code), str(exc.detail), headers=headers)


def _located(request: Request, field: str) -> str | None:
    """Where a field a service refused came from, as a validation error says it (not
    ``"in": null`` on every domain error): a path or query parameter by that name, else the
    body of a request that has one."""
    top = field.split(".", 1)[0]
    if top in request.path_params:
        return "path"
    if top in request.query_params:
        return "query"
    return "body" if request.method in ("POST", "PUT", "PATCH") else None


async def _phronesis_error(request: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, InvalidInputError):
        errors = [{"field": exc.field, "in": _located(request, exc.field), "message": exc.message}]
        return problem_response(422, "Invalid request", str(exc), errors=errors)
    if isinstance(exc, NotFoundError):
        return problem_response(404, "Not found", str(exc))
    if isinstance(exc, ConflictError):
        errors = [{"field": exc.field, "in": _located(request, exc.field), "message": exc.message}]
        return problem_response(409, "Conflict", str(exc), errors=errors)
    if isinstance(exc, StorageUnavailable):
        log.debug("storage unavailable: %s", exc)  # the database's Fault logs the outage once
        return problem_response(
            503,
            "Storage unavailable",
            f"the database is unavailable; retry in {RETRY_AFTER_S} s",
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    if isinstance(exc, EmbeddingError):
        log.warning("the embedding model failed, answered 503: %s", exc)
        return problem_response(
            503,
            "Embedding model unavailable",
            f"the sentence model could not embed this request's text; nothing was stored: retry in {RETRY_AFTER_S} s",
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    if isinstance(exc, QuotaExceededError):
        errors = [{"field": exc.field, "in": "body", "message": str(exc)}]
        return problem_response(403, "Quota exceeded", str(exc), errors=errors)
    if isinstance(exc, StorageContention):
        log.warning("transaction rolled back, answered 503: %s", exc)
        return problem_response(
            503,
            "Storage contention",
            "the database rolled this request back to let a concurrent one finish; nothing was stored: retry now",
            headers={"Retry-After": "1"},
        )
    if isinstance(exc, ConfigurationError):
        return _internal(exc, "Server misconfigured", "the server is misconfigured")
    return _internal(exc, "Internal error", "the request could not be completed")


async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
    return _internal(exc, "Internal error", "the request could not be completed")


def _internal(exc: Exception, title: str, detail: str) -> JSONResponse:
    """A 500 whose ``error_id`` is logged once with the traceback."""
    error_id = uuid.uuid4().hex[:12]
    log.error("%s (error_id=%s): %s", title.lower(), error_id, exc, exc_info=exc)
    return problem_response(500, title, f"{detail} (error id {error_id})", error_id=error_id)


def _title(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def install_problem_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(PhronesisError, _phronesis_error)
    app.add_exception_handler(Exception, _unexpected)
