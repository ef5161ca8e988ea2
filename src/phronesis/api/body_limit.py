"""Refuse oversized request bodies (413 problem+json) on every route.

Plain ASGI for the same reason as ``metrics.py``: it runs on every request. A declared
``Content-Length`` over the limit is refused before the body is read; a chunked body
that grows past the limit is cut off as it streams in, so the limit holds without
trusting the header.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from phronesis.api.problems import problem_response

__all__ = ["BodyLimitMiddleware"]


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.detail = f"request bodies are limited to {max_bytes} bytes"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = next((value for name, value in scope["headers"] if name == b"content-length"), None)
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            await problem_response(413, "Payload too large", self.detail)(scope, receive, send)
            return
        seen = 0

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    # an HTTPException passes through FastAPI's body parsing to the problem handler
                    raise HTTPException(413, self.detail)
            return message

        await self.app(scope, limited_receive, send)
