"""RFC 9457 problem+json for every error, naming the field that was wrong.

No traceback ever reaches a client: unexpected errors become a plain 500 problem and
are logged server-side.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from phronesis.exceptions import (
    ConfigurationError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    PhronesisError,
    StorageError,
)

__all__ = ["install_problem_handlers", "problem_response"]

log = logging.getLogger("phronesis.api")
PROBLEM_JSON = "application/problem+json"
_LOCATIONS = {"body", "query", "path", "header", "cookie"}


def problem_response(
    status: int,
    title: str,
    detail: str,
    *,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    if errors:
        body["errors"] = errors
        body["field"] = errors[0]["field"]
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _field_error(error: dict[str, Any]) -> dict[str, Any]:
    loc = [str(part) for part in error.get("loc", ())]
    where = loc[0] if loc and loc[0] in _LOCATIONS else None
    path = loc[1:] if where else loc
    return {"field": ".".join(path) or where or "(request)", "in": where, "message": error.get("msg", "invalid")}


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [_field_error(dict(e)) for e in exc.errors()]
    first = errors[0] if errors else {"field": "(request)", "message": "invalid request"}
    return problem_response(422, "Invalid request", f"{first['field']}: {first['message']}", errors=errors)


async def _http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    headers = dict(exc.headers) if exc.headers else None
    return problem_response(exc.status_code, _title(exc.status_code), str(exc.detail), headers=headers)


async def _phronesis_error(_: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, InvalidInputError):
        errors = [{"field": exc.field, "in": None, "message": exc.message}]
        return problem_response(422, "Invalid request", str(exc), errors=errors)
    if isinstance(exc, NotFoundError):
        return problem_response(404, "Not found", str(exc))
    if isinstance(exc, ConflictError):
        errors = [{"field": exc.field, "in": None, "message": exc.message}]
        return problem_response(409, "Conflict", str(exc), errors=errors)
    if isinstance(exc, StorageError):
        log.error("storage error: %s", exc)
        return problem_response(503, "Storage unavailable", "the database is unavailable; try again")
    if isinstance(exc, ConfigurationError):
        log.error("configuration error: %s", exc)
        return problem_response(500, "Server misconfigured", "the server is misconfigured")
    log.error("unhandled phronesis error: %s", exc)
    return problem_response(500, "Internal error", "the request could not be completed")


async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error", exc_info=exc)
    return problem_response(500, "Internal error", "the request could not be completed")


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
