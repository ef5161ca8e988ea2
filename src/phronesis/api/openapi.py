"""The OpenAPI document as the API behaves (issue 26): bearer API keys as a security scheme (Swagger
UI's Authorize button), and problem+json (RFC 9457) as the error body of every operation, where
FastAPI's default documents a ``HTTPValidationError`` shape no response of ours has."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from phronesis.api.problems import PROBLEM_JSON

__all__ = ["PROBLEM_SCHEMA", "document"]

BEARER = "apiKey"
PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "type": "object",
    "description": "An error (RFC 9457 problem details). A refused input names its field.",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string", "description": "Always about:blank: the status and title say what happened."},
        "title": {"type": "string", "description": "The kind of problem: Invalid request, Not found, …"},
        "status": {"type": "integer", "description": "The HTTP status, repeated."},
        "detail": {"type": "string", "description": "What was wrong, in one line a person can act on."},
        "field": {"type": "string", "description": "The first input at fault (dotted path), on a refused input."},
        "errors": {
            "type": "array",
            "description": "Every problem found with the input, each naming its field.",
            "items": {
                "type": "object",
                "properties": {
                    "field": {"type": "string", "description": "The input at fault (dotted path)."},
                    "in": {
                        "type": ["string", "null"],
                        "description": "Where it came from: body, query, path or header.",
                    },
                    "message": {"type": "string", "description": "What is wrong with it."},
                },
            },
        },
        "error_id": {"type": "string", "description": "On a 5xx: the id of the server's log line for it."},
    },
}
_ERRORS = {
    "4XX": "Refused: problem+json saying why (a 422 names the field; 401 without a valid API key)",
    "5XX": "The server could not do it (503: a dependency is down, retry after Retry-After)",
}


def document(app: FastAPI) -> None:
    """Make ``app.openapi()`` the document described above (built once, on first request)."""

    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            app.openapi_schema = _amend(spec)
        return app.openapi_schema

    app.openapi = build  # type: ignore[method-assign]


def _amend(spec: dict[str, Any]) -> dict[str, Any]:
    components = spec.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for fastapi_own in ("HTTPValidationError", "ValidationError"):
        schemas.pop(fastapi_own, None)
    schemas["Problem"] = PROBLEM_SCHEMA
    components["securitySchemes"] = {
        BEARER: {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key from PHRONESIS_API__KEYS (dev mode on loopback needs none).",
        }
    }
    problem = {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    for path, operations in spec.get("paths", {}).items():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            for status, response in responses.items():
                if status.startswith(("4", "5")):
                    response["content"] = problem
                    if status == "422":
                        response["description"] = "Invalid input: problem+json naming the field"
            for status, description in _ERRORS.items():
                responses.setdefault(status, {"description": description, "content": problem})
            operation["security"] = [{BEARER: []}] if path.startswith("/v1/") else []
    return spec
