"""In dev mode, answer only requests addressed to loopback (421 / 403 problem+json otherwise).

A keyless dev server trusts its loopback clients. A web page on another site can still reach it
through DNS rebinding: its own name resolves to 127.0.0.1 a moment later, and the browser sends the
page's requests (with the page's Host and Origin) to this server: such a page could read the
dashboard's CSRF token and change a tenant's settings. ``/mcp`` refuses another Host or Origin
too; this is the same rule for every route: the Host must name
loopback (``127.0.0.1``, ``localhost``, ``[::1]``, any port), and an Origin, when a browser sends
one, must be a loopback origin too. With keys (dev mode off) every request needs its key anyway.

Plain ASGI like ``body_limit``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from phronesis.api.auth import is_loopback_host
from phronesis.api.problems import problem_response

__all__ = ["LoopbackGuardMiddleware", "is_loopback_name"]

def is_loopback_name(host: str) -> bool:
    """``host`` (a Host header's name, without its port) names this machine's loopback: what
    ``api.auth`` takes for a loopback client, a ``.localhost`` name, or Starlette's test client's
    ``testserver`` (which never leaves the process)."""
    name = host.strip().lower().strip("[]")
    return name == "testserver" or name.endswith(".localhost") or is_loopback_host(name)


def _host_name(value: str) -> str:
    """The name of a Host header value (``[::1]:8000`` → ``::1``, ``localhost:8000`` → ``localhost``)."""
    value = value.strip()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class LoopbackGuardMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in scope["headers"]
            if name in (b"host", b"origin")
        }
        host, origin = headers.get("host", ""), headers.get("origin")
        if host and not is_loopback_name(_host_name(host)):
            detail = f"this dev server answers only requests to loopback (127.0.0.1, localhost), not to {host[:80]!r}"
            await problem_response(421, "Misdirected request", detail)(scope, receive, send)
            return
        if origin and origin != "null" and not is_loopback_name(urlsplit(origin).hostname or ""):
            detail = f"this dev server answers only pages served from loopback, not from {origin[:80]!r}"
            await problem_response(403, "Forbidden", detail)(scope, receive, send)
            return
        await self.app(scope, receive, send)
