"""Security headers on every response (the dashboard sets its own stricter ones).

Without a Content-Security-Policy or ``frame-ancestors``, a page elsewhere could frame ``/``,
``/docs`` and the JSON routes. Each response without its own
policy gets one allowing only this origin and no framing; ``/docs`` (Swagger UI's inline start-up
script, served from this package) is allowed inline scripts, nothing else is. Plus ``nosniff`` and
a referrer policy.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["SecurityHeadersMiddleware"]

_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_DOCS_POLICY = _POLICY.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
_ALWAYS = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"))


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = (_DOCS_POLICY if scope["path"] == "/docs" else _POLICY).encode()

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in _ALWAYS if name not in present]
                if b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", policy))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
