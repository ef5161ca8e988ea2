"""Refuse the NUL character anywhere in a request's text (422 problem+json naming where).

PostgreSQL cannot store NUL (``\\u0000``) in text: a heuristic, a run, a document or a filter
holding one would answer 500 there while SQLite stores it. One rule at the edge, for every
route and both backends, instead of a check in each model: a body or query without the byte
sequences costs one substring search; one with them is read to name the field.

Plain ASGI like ``body_limit``; it sits inside the body limit, so what it buffers is bounded.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from phronesis.api.problems import problem_response

__all__ = ["NulGuardMiddleware"]

_TITLE = "Invalid input"
_WHY = "contains the NUL character (\\u0000), which cannot be stored"


def _find(value: Any, where: str) -> str | None:
    """The dotted path of the first key or string in ``value`` holding NUL (without recursion)."""
    pending: list[tuple[Any, str]] = [(value, where)]
    while pending:
        item, at = pending.pop(0)
        if isinstance(item, str) and "\x00" in item:
            return at or "(body)"
        if isinstance(item, dict):
            for key, child in item.items():
                path = f"{at}.{key}" if at else str(key)
                if "\x00" in key:
                    return path
                pending.append((child, path))
        elif isinstance(item, list):
            pending.extend((child, f"{at}.{index}" if at else str(index)) for index, child in enumerate(item))
    return None


def _located(body: bytes) -> str | None:
    """Where a body holds NUL: a JSON document's field, a JSON Lines body's line and field, or the
    body itself when it is neither but holds the byte."""
    try:
        return _find(json.loads(body), "")
    except ValueError:
        pass
    try:
        for number, line in enumerate(body.splitlines(), start=1):
            if line.strip() and (field := _find(json.loads(line), "")) is not None:
                return f"line {number}: {field}"
    except ValueError:
        pass
    return "(body)" if b"\x00" in body else None


def _error(field: str, where: str) -> ASGIApp:
    return problem_response(
        422, _TITLE, f"{field}: {_WHY}", errors=[{"field": field, "in": where, "message": _WHY}]
    )


class NulGuardMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query: bytes = scope.get("query_string", b"")
        if b"%00" in query or b"\x00" in query:
            name = next((k for k, v in parse_qsl(query.decode("latin-1"), keep_blank_values=True)
                         if "\x00" in k or "\x00" in v), "(query)")  # fmt: skip
            await _error(name, "query")(scope, receive, send)
            return
        if b"\x00" in unquote_to_bytes(scope.get("raw_path") or scope["path"].encode()):
            await _error("(path)", "path")(scope, receive, send)
            return
        if scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = bytearray()
        while True:
            try:
                message = await receive()
            except HTTPException as exc:  # the body limit cut the body off: its answer, as FastAPI would give it
                title = HTTPStatus(exc.status_code).phrase
                headers = dict(exc.headers or {})
                await problem_response(exc.status_code, title, exc.detail, headers=headers)(scope, receive, send)
                return
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        if b"\\u0000" in body or b"\x00" in body:
            field = _located(bytes(body))
            if field is not None:
                await _error(field, "body")(scope, receive, send)
                return
        replay = iter(messages)

        async def replayed() -> Message:
            return next(replay, None) or await receive()

        await self.app(scope, replayed, send)
