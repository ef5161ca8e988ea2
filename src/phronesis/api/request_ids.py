"""Every request has an id: the caller's ``X-Request-ID`` when it is a sane token,
else a new one. It is echoed in the response, printed on every log line the request causes
(``phronesis.logs``) and kept in the decision records it writes (``audit.repository``).

Plain ASGI, like ``MetricsMiddleware``: no task group per request.
"""

from __future__ import annotations

import re
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from phronesis.logs import request_id

__all__ = ["HEADER", "RequestIdMiddleware"]

HEADER = "x-request-id"
_SANE = re.compile(r"[A-Za-z0-9._:-]{1,128}")
"""What a caller's id may be: it lands in logs and records, so no spaces, quotes or newlines."""


class RequestIdMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((v.decode("latin-1") for k, v in scope["headers"] if k == HEADER.encode()), "")
        rid = given if _SANE.fullmatch(given) else uuid.uuid4().hex
        token = request_id.set(rid)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (HEADER.encode(), rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_id.reset(token)
