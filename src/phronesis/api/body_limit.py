"""Refuse oversized request bodies (413 problem+json) on every route.

Plain ASGI for the same reason as ``metrics.py``: it runs on every request. A declared
``Content-Length`` over the limit is refused before the body is read; a chunked body
that grows past the limit is cut off as it streams in, so the limit holds without
trusting the header. A body must arrive within ``body_timeout_s`` of its first read (408 after):
a client sending it a byte at a time held its connection for ever. (Headers are the server's to
time out, or a proxy's: uvicorn does not.)
"""

from __future__ import annotations

import asyncio

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from phronesis.api.problems import problem_response

__all__ = ["BodyLimitMiddleware"]


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int, body_timeout_s: float = 30.0) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.detail = f"request bodies are limited to {max_bytes} bytes"
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = next((value for name, value in scope["headers"] if name == b"content-length"), None)
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            await problem_response(413, "Payload too large", self.detail)(scope, receive, send)
            return
        seen = 0
        deadline: float | None = None
        complete = False

        async def limited_receive() -> Message:
            nonlocal seen, deadline, complete
            if complete:  # after the body: a wait for the client's disconnect, however long
                return await receive()
            loop = asyncio.get_running_loop()
            deadline = deadline or loop.time() + self.body_timeout_s
            try:
                message = await asyncio.wait_for(receive(), timeout=max(0.0, deadline - loop.time()))
            except TimeoutError:
                # otherwise a client sending its body a byte at a time holds a connection for ever
                raise HTTPException(408, f"the request body did not arrive within {self.body_timeout_s:g} s") from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                complete = not message.get("more_body", False)
                if seen > self.max_bytes:
                    # an HTTPException passes through FastAPI's body parsing to the problem handler
                    raise HTTPException(413, self.detail)
            return message

        await self.app(scope, limited_receive, send)
